/* memlat — latency of dependent loads against the size of the data they wander over.
 *
 * Each buffer holds one pointer per 64-byte line, linking the lines in a random cycle,
 * and the loop follows the cycle: every load waits for the one before, so the time per
 * load is the latency of the level of the memory hierarchy the buffer fits in.  Where
 * the time jumps is the usable size of the last-level cache; docs/edmd.md uses it to
 * explain why the event-driven engine slows down between 10^4 and 10^5 disks.
 *
 *   cc -O2 -o memlat jobs/memlat.c && ./memlat          (sizes in MiB: 2 4 8 12 16 32)
 *   ./memlat 6 10 24                                     (or give your own)           */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double Ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return 1e9 * (double)t.tv_sec + (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
  const double defaults[] = {2, 4, 8, 12, 16, 32};
  const int    nsize      = argc > 1 ? argc - 1 : 6;
  uint64_t     state      = 88172645463325252ull; /* xorshift64 */

  for (int s = 0; s < nsize; s++) {
    const double mib = argc > 1 ? atof(argv[s + 1]) : defaults[s];
    const size_t n   = (size_t)(mib * 1048576.0 / 64);
    if (mib <= 0 || n < 2) {
      fprintf(stderr, "memlat: sizes are in MiB and must be > 0 (got '%s')\n", argc > 1 ? argv[s + 1] : "?");
      return 1;
    }
    size_t *line = aligned_alloc(64, n * 64), *order = malloc(n * sizeof(*order));
    if (!line || !order) {
      fprintf(stderr, "memlat: out of memory for %g MiB\n", mib);
      return 1;
    }
    for (size_t i = 0; i < n; i++) order[i] = i;
    for (size_t i = n - 1; i > 0; i--) { /* Fisher-Yates shuffle: a random cycle */
      state ^= state << 13, state ^= state >> 7, state ^= state << 17;
      const size_t j = state % (i + 1), t = order[i];
      order[i] = order[j], order[j] = t;
    }
    for (size_t i = 0; i < n; i++) line[order[i] * 8] = order[(i + 1) % n] * 8;
    const size_t loads = 20000000;
    size_t       p     = 0;
    for (size_t k = 0; k < n; k++) p = line[p]; /* one lap to warm up */
    const double t0 = Ns();
    for (size_t k = 0; k < loads; k++) p = line[p];
    const double t1 = Ns();
    printf("%6.1f MiB  %6.1f ns per dependent load%s\n", mib, (t1 - t0) / (double)loads, p == (size_t)-1 ? " " : "");
    free(line), free(order);
  }
  return 0;
}
