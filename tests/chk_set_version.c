/* Test helper: overwrite the format version of a throng checkpoint (the "version"
   attribute and throng's header in the user block), to check that a checkpoint of
   another format version is refused.  chk_set_version FILE VERSION                  */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
  if (argc != 3) {
    fprintf(stderr, "usage: chk_set_version FILE VERSION\n");
    return 2;
  }
  const int v = atoi(argv[2]);
  hid_t     f = H5Fopen(argv[1], H5F_ACC_RDWR, H5P_DEFAULT), g, a;
  if (f < 0 || (g = H5Gopen2(f, "checkpoint", H5P_DEFAULT)) < 0 || (a = H5Aopen(g, "version", H5P_DEFAULT)) < 0 ||
      H5Awrite(a, H5T_NATIVE_INT, &v) < 0) {
    fprintf(stderr, "chk_set_version: cannot rewrite the version of %s\n", argv[1]);
    return 1;
  }
  H5Aclose(a);
  H5Gclose(g);
  H5Fclose(f);
  { /* and in throng's header in the user block ("throng-checkpoint V size S sum H") */
    char               head[512] = "", fmt[32];
    int                old;
    long long          size;
    unsigned long long sum;
    FILE              *t = fopen(argv[1], "r+b");
    if (!t || fread(head, 1, sizeof(head) - 1, t) < 1 ||
        sscanf(head, "%31s %d size %lld sum %llx", fmt, &old, &size, &sum) != 4) {
      fprintf(stderr, "chk_set_version: %s has no throng header\n", argv[1]);
      return 1;
    }
    memset(head, 0, sizeof(head));
    snprintf(head, sizeof(head), "%s %d size %lld sum %016llx\n", fmt, v, size, sum);
    if (fseek(t, 0, SEEK_SET) || fwrite(head, 1, sizeof(head), t) != sizeof(head) || fclose(t)) return 1;
  }
  return 0;
}
