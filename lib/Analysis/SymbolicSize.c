/* Polynomials over shape symbols: sizes and byte counts of tensors whose
 * dimensions are only known at run time, and the comparisons the memory
 * passes need (is this buffer surely larger than that one?).
 *
 * A polynomial is a sum of terms, each an integer coefficient times a product
 * of symbols (a symbol may repeat: s0*s0). Terms are kept sorted and merged,
 * so equal polynomials have equal term lists. Every symbol is at least 1 and
 * may carry user bounds; a comparison answers only what holds for every
 * assignment of the symbols within their bounds. Arithmetic that would
 * overflow 64 bits or exceed the supported degree leaves the polynomial
 * invalid: it still prints ("unknown") and every comparison with it is
 * Unknown. */
#include "Analysis/Analysis.h"

#include <stdlib.h>
#include <string.h>

typedef struct Term {
  int64_t coefficient;
  unsigned degree;
  unsigned symbols[MEMOPT_POLYNOMIAL_MAX_DEGREE]; /* sorted ascending, repeats for powers */
} Term;

struct MemoptPolynomial {
  Term *terms;
  size_t count;
  size_t capacity;
  bool invalid;
};

static MemoptPolynomial *allocate(void) {
  MemoptPolynomial *polynomial = memoptAllocateZeroed(1, sizeof *polynomial);
  return polynomial;
}

MemoptPolynomial *memoptPolynomialCreateConstant(int64_t value) {
  MemoptPolynomial *polynomial = allocate();
  if (value != 0) {
    Term term = {value, 0, {0}};
    polynomial->terms = memoptAllocateZeroed(1, sizeof term);
    polynomial->terms[0] = term;
    polynomial->count = polynomial->capacity = 1;
  }
  return polynomial;
}

MemoptPolynomial *memoptPolynomialCreateUnknown(void) {
  MemoptPolynomial *polynomial = allocate();
  polynomial->invalid = true;
  return polynomial;
}

MemoptPolynomial *memoptPolynomialCreateSymbol(unsigned symbol) {
  MemoptPolynomial *polynomial = memoptPolynomialCreateConstant(1);
  polynomial->terms[0].degree = 1;
  polynomial->terms[0].symbols[0] = symbol;
  return polynomial;
}

MemoptPolynomial *memoptPolynomialClone(const MemoptPolynomial *polynomial) {
  MemoptPolynomial *copy = allocate();
  copy->invalid = polynomial->invalid;
  if (polynomial->count) {
    copy->terms = memoptAllocateZeroed(polynomial->count, sizeof *copy->terms);
    memcpy(copy->terms, polynomial->terms, polynomial->count * sizeof *copy->terms);
    copy->count = copy->capacity = polynomial->count;
  }
  return copy;
}

void memoptPolynomialDestroy(MemoptPolynomial *polynomial) {
  if (!polynomial)
    return;
  free(polynomial->terms);
  free(polynomial);
}

bool memoptPolynomialIsValid(const MemoptPolynomial *polynomial) { return !polynomial->invalid; }

bool memoptPolynomialIsConstant(const MemoptPolynomial *polynomial, int64_t *value) {
  if (polynomial->invalid)
    return false;
  if (polynomial->count == 0) {
    *value = 0;
    return true;
  }
  if (polynomial->count == 1 && polynomial->terms[0].degree == 0) {
    *value = polynomial->terms[0].coefficient;
    return true;
  }
  return false;
}

static bool checkedAdd(int64_t a, int64_t b, int64_t *sum) {
  if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))
    return false;
  *sum = a + b;
  return true;
}

static bool checkedMultiply(int64_t a, int64_t b, int64_t *product) {
  if (a == 0 || b == 0) {
    *product = 0;
    return true;
  }
  if (a == -1 || b == -1) {
    int64_t other = a == -1 ? b : a;
    if (other == INT64_MIN)
      return false;
    *product = -other;
    return true;
  }
  int64_t result = (int64_t)((uint64_t)a * (uint64_t)b);
  if (result / b != a)
    return false;
  *product = result;
  return true;
}

/* Orders terms by descending degree, then by their symbols: the printed form
 * starts with the leading terms. */
static int compareMonomials(const Term *a, const Term *b) {
  if (a->degree != b->degree)
    return a->degree > b->degree ? -1 : 1;
  for (unsigned i = 0; i < a->degree; ++i)
    if (a->symbols[i] != b->symbols[i])
      return a->symbols[i] < b->symbols[i] ? -1 : 1;
  return 0;
}

/* Adds `coefficient` times the monomial of `term` to `polynomial`, keeping
 * the terms sorted and dropping zeros. */
static void addTerm(MemoptPolynomial *polynomial, const Term *term, int64_t coefficient) {
  if (coefficient == 0 || polynomial->invalid)
    return;
  size_t low = 0, high = polynomial->count;
  while (low < high) {
    size_t middle = (low + high) / 2;
    if (compareMonomials(&polynomial->terms[middle], term) < 0)
      low = middle + 1;
    else
      high = middle;
  }
  if (low < polynomial->count && compareMonomials(&polynomial->terms[low], term) == 0) {
    int64_t sum;
    if (!checkedAdd(polynomial->terms[low].coefficient, coefficient, &sum)) {
      polynomial->invalid = true;
      return;
    }
    if (sum != 0) {
      polynomial->terms[low].coefficient = sum;
      return;
    }
    memmove(&polynomial->terms[low], &polynomial->terms[low + 1],
            (polynomial->count - low - 1) * sizeof *polynomial->terms);
    --polynomial->count;
    return;
  }
  polynomial->terms = memoptGrowArray(polynomial->terms, &polynomial->capacity,
                                      polynomial->count + 1, sizeof *polynomial->terms);
  memmove(&polynomial->terms[low + 1], &polynomial->terms[low],
          (polynomial->count - low) * sizeof *polynomial->terms);
  polynomial->terms[low] = *term;
  polynomial->terms[low].coefficient = coefficient;
  ++polynomial->count;
}

void memoptPolynomialAccumulate(MemoptPolynomial *into, const MemoptPolynomial *polynomial,
                                int64_t factor) {
  if (polynomial->invalid) {
    into->invalid = true;
    return;
  }
  for (size_t i = 0; i < polynomial->count && !into->invalid; ++i) {
    int64_t coefficient;
    if (!checkedMultiply(polynomial->terms[i].coefficient, factor, &coefficient))
      into->invalid = true;
    else
      addTerm(into, &polynomial->terms[i], coefficient);
  }
}

/* The product of two monomials with the product of their coefficients;
 * false on overflow of the coefficient or the degree. */
static bool multiplyTerms(const Term *a, const Term *b, Term *product) {
  if (a->degree + b->degree > MEMOPT_POLYNOMIAL_MAX_DEGREE ||
      !checkedMultiply(a->coefficient, b->coefficient, &product->coefficient))
    return false;
  unsigned i = 0, j = 0, k = 0;
  while (i < a->degree || j < b->degree) {
    if (j == b->degree || (i < a->degree && a->symbols[i] <= b->symbols[j]))
      product->symbols[k++] = a->symbols[i++];
    else
      product->symbols[k++] = b->symbols[j++];
  }
  product->degree = k;
  return true;
}

MemoptPolynomial *memoptPolynomialMultiply(const MemoptPolynomial *a, const MemoptPolynomial *b) {
  MemoptPolynomial *product = memoptPolynomialCreateConstant(0);
  product->invalid = a->invalid || b->invalid;
  for (size_t i = 0; i < a->count && !product->invalid; ++i)
    for (size_t j = 0; j < b->count && !product->invalid; ++j) {
      Term term;
      if (!multiplyTerms(&a->terms[i], &b->terms[j], &term))
        product->invalid = true;
      else
        addTerm(product, &term, term.coefficient);
    }
  return product;
}

bool memoptPolynomialEvaluate(const MemoptPolynomial *polynomial, const int64_t *values,
                              size_t valueCount, int64_t *result) {
  if (polynomial->invalid)
    return false;
  int64_t sum = 0;
  for (size_t i = 0; i < polynomial->count; ++i) {
    const Term *term = &polynomial->terms[i];
    int64_t product = term->coefficient;
    for (unsigned k = 0; k < term->degree; ++k)
      if (term->symbols[k] >= valueCount ||
          !checkedMultiply(product, values[term->symbols[k]], &product))
        return false;
    if (!checkedAdd(sum, product, &sum))
      return false;
  }
  *result = sum;
  return true;
}

bool memoptPolynomialEqual(const MemoptPolynomial *a, const MemoptPolynomial *b) {
  if (a->invalid || b->invalid || a->count != b->count)
    return false;
  for (size_t i = 0; i < a->count; ++i)
    if (compareMonomials(&a->terms[i], &b->terms[i]) != 0 ||
        a->terms[i].coefficient != b->terms[i].coefficient)
      return false;
  return true;
}

void memoptPolynomialPrint(const MemoptPolynomial *polynomial, const char *const *symbolNames,
                           size_t symbolCount, MemoptStringBuffer *out) {
  if (polynomial->invalid) {
    memoptStringBufferAppendCString(out, "unknown");
    return;
  }
  if (polynomial->count == 0) {
    memoptStringBufferAppendCString(out, "0");
    return;
  }
  for (size_t i = 0; i < polynomial->count; ++i) {
    const Term *term = &polynomial->terms[i];
    int64_t coefficient = term->coefficient;
    uint64_t magnitude = coefficient < 0 ? -(uint64_t)coefficient : (uint64_t)coefficient;
    if (i == 0)
      memoptStringBufferAppendCString(out, coefficient < 0 ? "-" : "");
    else
      memoptStringBufferAppendCString(out, coefficient < 0 ? " - " : " + ");
    bool first = true;
    if (magnitude != 1 || term->degree == 0) {
      memoptStringBufferAppendFormat(out, "%llu", (unsigned long long)magnitude);
      first = false;
    }
    for (unsigned k = 0; k < term->degree;) {
      unsigned power = 1;
      while (k + power < term->degree && term->symbols[k + power] == term->symbols[k])
        ++power;
      memoptStringBufferAppendCString(out, first ? "" : "*");
      if (term->symbols[k] < symbolCount)
        memoptStringBufferAppendCString(out, symbolNames[term->symbols[k]]);
      else
        memoptStringBufferAppendFormat(out, "s%u", term->symbols[k]);
      if (power > 1)
        memoptStringBufferAppendFormat(out, "^%u", power);
      first = false;
      k += power;
    }
  }
}

static MemoptSymbolRange rangeOf(unsigned symbol, const MemoptSymbolRange *ranges,
                                 size_t rangeCount) {
  if (symbol < rangeCount)
    return ranges[symbol];
  return (MemoptSymbolRange){1, INT64_MAX};
}

/* Rewrites every symbol s as minimum(s) + t with t >= 0 (t keeps the symbol's
 * number): once every coefficient of a non-constant term has one sign, the
 * constant term bounds the polynomial from that side. */
static MemoptPolynomial *shiftToMinimum(const MemoptPolynomial *polynomial,
                                        const MemoptSymbolRange *ranges, size_t rangeCount) {
  MemoptPolynomial *shifted = memoptPolynomialCreateConstant(0);
  shifted->invalid = polynomial->invalid;
  for (size_t i = 0; i < polynomial->count && !shifted->invalid; ++i) {
    const Term *term = &polynomial->terms[i];
    MemoptPolynomial *product = memoptPolynomialCreateConstant(term->coefficient);
    for (unsigned k = 0; k < term->degree && !product->invalid; ++k) {
      MemoptPolynomial *factor = memoptPolynomialCreateSymbol(term->symbols[k]);
      MemoptPolynomial *minimum =
          memoptPolynomialCreateConstant(rangeOf(term->symbols[k], ranges, rangeCount).minimum);
      memoptPolynomialAccumulate(factor, minimum, 1);
      MemoptPolynomial *next = memoptPolynomialMultiply(product, factor);
      memoptPolynomialDestroy(minimum);
      memoptPolynomialDestroy(factor);
      memoptPolynomialDestroy(product);
      product = next;
    }
    memoptPolynomialAccumulate(shifted, product, 1);
    memoptPolynomialDestroy(product);
  }
  return shifted;
}

/* Bounds the shifted polynomial (every t in [0, maximum - minimum]) by
 * interval arithmetic; false when a symbol is unbounded or on overflow. */
static bool intervalOf(const MemoptPolynomial *shifted, const MemoptSymbolRange *ranges,
                       size_t rangeCount, int64_t *low, int64_t *high) {
  *low = *high = 0;
  for (size_t i = 0; i < shifted->count; ++i) {
    const Term *term = &shifted->terms[i];
    int64_t extreme = term->coefficient;
    for (unsigned k = 0; k < term->degree; ++k) {
      MemoptSymbolRange range = rangeOf(term->symbols[k], ranges, rangeCount);
      if (range.maximum == INT64_MAX || !checkedMultiply(extreme, range.maximum - range.minimum,
                                                         &extreme))
        return false;
    }
    /* A term with a symbol ranges from 0 to its extreme; a constant is fixed. */
    int64_t termLow = term->degree == 0 || extreme < 0 ? extreme : 0;
    int64_t termHigh = term->degree == 0 || extreme > 0 ? extreme : 0;
    if (!checkedAdd(*low, termLow, low) || !checkedAdd(*high, termHigh, high))
      return false;
  }
  return true;
}

MemoptComparison memoptPolynomialCompare(const MemoptPolynomial *a, const MemoptPolynomial *b,
                                         const MemoptSymbolRange *ranges, size_t rangeCount) {
  MemoptPolynomial *difference = memoptPolynomialClone(a);
  memoptPolynomialAccumulate(difference, b, -1);
  MemoptPolynomial *shifted = shiftToMinimum(difference, ranges, rangeCount);
  memoptPolynomialDestroy(difference);
  if (shifted->invalid) {
    memoptPolynomialDestroy(shifted);
    return MemoptComparisonUnknown;
  }
  int64_t constant = 0;
  bool anyPositive = false, anyNegative = false;
  for (size_t i = 0; i < shifted->count; ++i) {
    if (shifted->terms[i].degree == 0)
      constant = shifted->terms[i].coefficient;
    else if (shifted->terms[i].coefficient > 0)
      anyPositive = true;
    else
      anyNegative = true;
  }
  MemoptComparison result = MemoptComparisonUnknown;
  int64_t low, high;
  if (!anyPositive && !anyNegative)
    result = constant > 0 ? MemoptComparisonGreater
             : constant < 0 ? MemoptComparisonLess
                            : MemoptComparisonEqual;
  else if (!anyNegative && constant >= 0)
    result = constant > 0 ? MemoptComparisonGreater : MemoptComparisonGreaterOrEqual;
  else if (!anyPositive && constant <= 0)
    result = constant < 0 ? MemoptComparisonLess : MemoptComparisonLessOrEqual;
  else if (intervalOf(shifted, ranges, rangeCount, &low, &high))
    result = low > 0     ? MemoptComparisonGreater
             : high < 0  ? MemoptComparisonLess
             : low == 0  ? MemoptComparisonGreaterOrEqual
             : high == 0 ? MemoptComparisonLessOrEqual
                         : MemoptComparisonUnknown;
  memoptPolynomialDestroy(shifted);
  return result;
}

const char *memoptComparisonName(MemoptComparison comparison) {
  switch (comparison) {
  case MemoptComparisonLess:
    return "less";
  case MemoptComparisonLessOrEqual:
    return "less or equal";
  case MemoptComparisonEqual:
    return "equal";
  case MemoptComparisonGreaterOrEqual:
    return "greater or equal";
  case MemoptComparisonGreater:
    return "greater";
  case MemoptComparisonUnknown:
    break;
  }
  return "unknown";
}

size_t memoptPolynomialGetNumTerms(const MemoptPolynomial *polynomial) {
  return polynomial->count;
}

int64_t memoptPolynomialGetTerm(const MemoptPolynomial *polynomial, size_t index,
                                unsigned *symbols, unsigned capacity, unsigned *degree) {
  const Term *term = &polynomial->terms[index];
  *degree = term->degree < capacity ? term->degree : capacity;
  memcpy(symbols, term->symbols, *degree * sizeof *symbols);
  return term->coefficient;
}
