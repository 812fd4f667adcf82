/* Strict number parsing: a whole string or nothing (no trailing junk, no
 * overflow, finite doubles), for pass options and command-line values; and
 * bounded integers, e.g. `--count=N`, one definition for every tool. */
#include "Support/Support.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

bool memoptParseInt64(const char *text, long long *out) {
  if (!*text)
    return false;
  char *end;
  errno = 0;
  long long value = strtoll(text, &end, 0);
  if (errno != 0 || *end != '\0')
    return false;
  *out = value;
  return true;
}

bool memoptParseDouble(const char *text, double *out) {
  if (!*text)
    return false;
  char *end;
  errno = 0;
  double value = strtod(text, &end);
  if (errno != 0 || *end != '\0' || !isfinite(value))
    return false;
  *out = value;
  return true;
}

bool memoptParseInt64InRange(const char *text, long long min, long long max, long long *out) {
  long long value;
  if (!memoptParseInt64(text, &value) || value < min || value > max)
    return false;
  *out = value;
  return true;
}
