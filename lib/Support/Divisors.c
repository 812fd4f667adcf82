/* The divisors of a 63-bit integer, from its prime factors: trial division by
 * the small primes, then Pollard's rho (Brent's variant) with a deterministic
 * Miller-Rabin test for what remains. Polylogarithmic in the number for all
 * but adversarial inputs, where a linear scan of candidates (or trial
 * division to the square root) is not: a prime extent near 2^62 has no
 * divisor to find but 1 and itself. */
#include "Support/Support.h"

#include <stdlib.h>

typedef unsigned __int128 Wide;

static uint64_t multiplyMod(uint64_t a, uint64_t b, uint64_t m) {
  return (uint64_t)((Wide)a * b % m);
}

static uint64_t powerMod(uint64_t base, uint64_t exponent, uint64_t m) {
  uint64_t result = 1 % m;
  base %= m;
  for (; exponent; exponent >>= 1) {
    if (exponent & 1)
      result = multiplyMod(result, base, m);
    base = multiplyMod(base, base, m);
  }
  return result;
}

static uint64_t gcd(uint64_t a, uint64_t b) {
  while (b) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* These twelve bases decide primality exactly below 2^64 (Sorenson and
 * Webster, 2015). */
static const uint64_t smallPrimes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};

static bool isPrime(uint64_t n) {
  if (n < 2)
    return false;
  for (size_t i = 0; i < sizeof smallPrimes / sizeof *smallPrimes; ++i)
    if (n % smallPrimes[i] == 0)
      return n == smallPrimes[i];
  uint64_t odd = n - 1;
  int twos = 0;
  for (; (odd & 1) == 0; odd >>= 1)
    ++twos;
  for (size_t i = 0; i < sizeof smallPrimes / sizeof *smallPrimes; ++i) {
    uint64_t x = powerMod(smallPrimes[i], odd, n);
    if (x == 1 || x == n - 1)
      continue;
    int r = 1;
    for (; r < twos; ++r) {
      x = multiplyMod(x, x, n);
      if (x == n - 1)
        break;
    }
    if (r == twos)
      return false;
  }
  return true;
}

/* A nontrivial factor of the odd composite `n` (no factor below 41). */
static uint64_t rhoFactor(uint64_t n) {
  for (uint64_t c = 1;; ++c) {
    uint64_t y = 2, x = 2, saved = 2, product = 1, factor = 1;
    const uint64_t batch = 128;
    for (uint64_t length = 1; factor == 1; length <<= 1) {
      x = y;
      for (uint64_t i = 0; i < length; ++i)
        y = (multiplyMod(y, y, n) + c) % n;
      for (uint64_t done = 0; done < length && factor == 1; done += batch) {
        saved = y;
        for (uint64_t i = 0; i < batch && done + i < length; ++i) {
          y = (multiplyMod(y, y, n) + c) % n;
          product = multiplyMod(product, x > y ? x - y : y - x, n);
        }
        factor = gcd(product, n);
      }
    }
    if (factor == n) {
      /* The batch overshot: step through it one difference at a time. */
      do {
        saved = (multiplyMod(saved, saved, n) + c) % n;
        factor = gcd(x > saved ? x - saved : saved - x, n);
      } while (factor == 1);
    }
    if (factor != n)
      return factor;
  }
}

typedef struct Primes {
  uint64_t *items;
  size_t count, capacity;
} Primes;

static void appendPrime(Primes *primes, uint64_t p) {
  primes->items = memoptGrowArray(primes->items, &primes->capacity, primes->count + 1,
                                  sizeof *primes->items);
  primes->items[primes->count++] = p;
}

static void factorLarge(uint64_t n, Primes *primes) {
  if (n == 1)
    return;
  if (isPrime(n)) {
    appendPrime(primes, n);
    return;
  }
  uint64_t factor = rhoFactor(n);
  factorLarge(factor, primes);
  factorLarge(n / factor, primes);
}

static int compareUnsigned(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static int compareSigned(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

int64_t *memoptDivisors(int64_t n, size_t *count) {
  Primes primes = {NULL, 0, 0};
  uint64_t rest = n > 0 ? (uint64_t)n : 1;
  for (size_t i = 0; i < sizeof smallPrimes / sizeof *smallPrimes; ++i)
    while (rest % smallPrimes[i] == 0) {
      appendPrime(&primes, smallPrimes[i]);
      rest /= smallPrimes[i];
    }
  factorLarge(rest, &primes);
  if (primes.count > 1)
    qsort(primes.items, primes.count, sizeof *primes.items, compareUnsigned);
  /* Each prime power p^k multiplies the divisors so far by p, ..., p^k. */
  size_t total = 1, capacity = 16;
  int64_t *divisors = memoptReallocArray(NULL, capacity, sizeof *divisors);
  divisors[0] = 1;
  for (size_t i = 0; i < primes.count;) {
    uint64_t p = primes.items[i];
    size_t multiplicity = 0;
    for (; i < primes.count && primes.items[i] == p; ++i)
      ++multiplicity;
    size_t before = total;
    divisors = memoptGrowArray(divisors, &capacity, before * (multiplicity + 1), sizeof *divisors);
    for (size_t j = 0; j < before * multiplicity; ++j)
      divisors[total++] = divisors[j] * (int64_t)p;
  }
  free(primes.items);
  qsort(divisors, total, sizeof *divisors, compareSigned);
  *count = total;
  return divisors;
}
