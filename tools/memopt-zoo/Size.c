/* Symbolic tensor extents: monomials over the dynamic symbols of a function.
 * Models only ever multiply extents (B*S when flattening, B*heads when
 * splitting attention heads, R*R for a pair representation), so a monomial
 * is closed under everything the zoo needs and equality is exact. */
#include "Emitter.h"

#include <limits.h>
#include <string.h>

static long long saturatingMul(long long a, long long b) {
  long long product;
  if (a == LLONG_MAX || b == LLONG_MAX || __builtin_mul_overflow(a, b, &product))
    return LLONG_MAX;
  return product;
}

ZooSize zooSizeStatic(long long extent) {
  ZooSize size;
  memset(&size, 0, sizeof size);
  size.factor = extent;
  return size;
}

ZooSize zooSizeSymbol(int symbol) {
  ZooSize size = zooSizeStatic(1);
  size.powers[symbol] = 1;
  return size;
}

bool zooSizeIsStatic(ZooSize size) {
  for (int i = 0; i < ZOO_MAX_SYMBOLS; ++i)
    if (size.powers[i])
      return false;
  return true;
}

ZooSize zooSizeMul(ZooSize a, ZooSize b) {
  ZooSize product = zooSizeStatic(saturatingMul(a.factor, b.factor));
  for (int i = 0; i < ZOO_MAX_SYMBOLS; ++i)
    product.powers[i] = (unsigned char)(a.powers[i] + b.powers[i]);
  return product;
}

bool zooSizeEqual(ZooSize a, ZooSize b) {
  return a.factor == b.factor && memcmp(a.powers, b.powers, sizeof a.powers) == 0;
}

long long zooSizeNominal(ZooSize size, const long long *symbolValues) {
  long long value = size.factor;
  for (int i = 0; i < ZOO_MAX_SYMBOLS; ++i)
    for (int p = 0; p < size.powers[i]; ++p)
      value = saturatingMul(value, symbolValues[i]);
  return value;
}

long long zooWindowOutputExtent(long long extent, int window, int stride) {
  return (extent - window) / stride + 1;
}

ZooSize zooSizeOfAxes(ZooValue value, unsigned axes) {
  ZooSize product = zooSizeStatic(1);
  for (int i = 0; i < value.rank; ++i)
    if ((axes >> i) & 1u)
      product = zooSizeMul(product, value.dims[i]);
  return product;
}

int zooKeptDims(int rank, unsigned axes, int *kept) {
  int count = 0;
  for (int i = 0; i < rank; ++i)
    if (!((axes >> i) & 1u))
      kept[count++] = i;
  return count;
}
