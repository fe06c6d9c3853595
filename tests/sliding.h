/* The sliding case of seed 000 §4.2 (see test_sliding.c for the derivation): the exact
   solution x(t) for x(0) = (sin a, cos a, 0), C = 10, d = 3, f = -e_2. */
#pragma once
#include <throng/util/project.h>
#include <math.h>
#include <stdio.h>
#define SLIDING_PI 3.14159265358979323846

static inline void SlidingExact(double a, double t, double x[3])
{
  const double c1 = 0.5 * log((1 - cos(a)) / (1 + cos(a))), tstar = -c1;
  if (t <= tstar) {
    const double e = exp(2 * (c1 + t)), C2 = sin(a) * (exp(2 * c1) + 1);
    x[0] = C2 * exp(t) / (1 + e);
    x[1] = (1 - e) / (1 + e);
  } else {
    x[0] = 1;
    x[1] = tstar - t;
  }
  x[2] = 0;
}
