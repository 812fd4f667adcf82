/* Small text utilities: edit distance (for "did you mean" suggestions) and
 * string copies. */
#include "Support/Support.h"

#include <stdlib.h>
#include <string.h>

size_t memoptEditDistance(const char *a, const char *b) {
  size_t n = strlen(a), m = strlen(b);
  size_t *row = memoptAllocateZeroed(m + 1, sizeof *row);
  for (size_t j = 0; j <= m; ++j)
    row[j] = j;
  for (size_t i = 1; i <= n; ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= m; ++j) {
      size_t above = row[j];
      size_t best = diagonal + (a[i - 1] != b[j - 1]);
      if (row[j] + 1 < best)
        best = row[j] + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      row[j] = best;
      diagonal = above;
    }
  }
  size_t result = row[m];
  free(row);
  return result;
}

bool memoptStartsWith(const char *string, const char *prefix) {
  return strncmp(string, prefix, strlen(prefix)) == 0;
}

char *memoptStrndup(const char *string, size_t length) {
  char *copy = memoptAllocateZeroed(length + 1, 1);
  memcpy(copy, string, length);
  copy[length] = '\0';
  return copy;
}
