/* Bounded integers, e.g. the value of a command-line `--count=N`: one
 * definition of what such a value accepts for every tool. */
#include "Support/Support.h"

bool memoptParseInt64InRange(const char *text, long long min, long long max, long long *out) {
  long long value;
  if (!memoptParseInt64(text, &value) || value < min || value > max)
    return false;
  *out = value;
  return true;
}
