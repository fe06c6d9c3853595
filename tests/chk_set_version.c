/* Test helper: overwrite the "version" attribute of a throng checkpoint, to check that
   a checkpoint of another format version is refused.  chk_set_version FILE VERSION   */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
  if (argc != 3) {
    fprintf(stderr, "usage: chk_set_version FILE VERSION\n");
    return 2;
  }
  const int v = atoi(argv[2]);
  hid_t     f = H5Fopen(argv[1], H5F_ACC_RDWR, H5P_DEFAULT), g, a;
  if (f < 0 || (g = H5Gopen2(f, "checkpoint", H5P_DEFAULT)) < 0 || (a = H5Aopen(g, "version", H5P_DEFAULT)) < 0 || H5Awrite(a, H5T_NATIVE_INT, &v) < 0) {
    fprintf(stderr, "chk_set_version: cannot rewrite the version of %s\n", argv[1]);
    return 1;
  }
  H5Aclose(a);
  H5Gclose(g);
  H5Fclose(f);
  return 0;
}
