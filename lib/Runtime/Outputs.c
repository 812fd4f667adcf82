/* Output inspection: checksums and printing of memrefs passed from IR.
 *
 * Both walk the logical shape in row-major order through the descriptor's
 * offset and strides, so a transposed or sliced result gives the same
 * checksum as a contiguous copy of the same values; optimizations that change
 * layouts but not values compare equal. */
#include "Runtime/Runtime.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The ranked descriptor behind an unranked memref: two pointers, then the
 * offset, sizes and strides as 64-bit integers. */
typedef struct StridedView {
  const char *aligned;
  int64_t offset;
  int64_t rank;
  const int64_t *sizes;
  const int64_t *strides;
} StridedView;

static StridedView viewOf(const MemoptRtUnrankedMemRef *memref) {
  void *const *pointers = (void *const *)memref->descriptor;
  const int64_t *integers = (const int64_t *)(pointers + 2);
  StridedView view = {(const char *)pointers[1], integers[0], memref->rank, integers + 1,
                      integers + 1 + memref->rank};
  return view;
}

static int64_t elementCount(const StridedView *view) {
  int64_t count = 1;
  for (int64_t d = 0; d < view->rank; ++d)
    count *= view->sizes[d];
  return count;
}

const char *memoptRtElementTypeName(MemoptRtElementType type) {
  switch (type) {
  case MemoptRtF64: return "f64";
  case MemoptRtF32: return "f32";
  case MemoptRtF16: return "f16";
  case MemoptRtBF16: return "bf16";
  case MemoptRtI64: return "i64";
  case MemoptRtI32: return "i32";
  case MemoptRtI16: return "i16";
  case MemoptRtI8: return "i8";
  case MemoptRtI1: return "i1";
  }
  return "?";
}

size_t memoptRtElementSize(MemoptRtElementType type) {
  switch (type) {
  case MemoptRtF64:
  case MemoptRtI64: return 8;
  case MemoptRtF32:
  case MemoptRtI32: return 4;
  case MemoptRtF16:
  case MemoptRtBF16:
  case MemoptRtI16: return 2;
  case MemoptRtI8:
  case MemoptRtI1: return 1;
  }
  return 1;
}

/* IEEE binary16 to double, exactly (every half is a double). */
static double halfToDouble(uint16_t bits) {
  int sign = bits >> 15, exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  double magnitude;
  if (exponent == 0)
    magnitude = ldexp(mantissa, -24);
  else if (exponent == 31)
    magnitude = mantissa ? NAN : INFINITY;
  else
    magnitude = ldexp(mantissa | 0x400, exponent - 25);
  return sign ? -magnitude : magnitude;
}

/* bfloat16 is the upper half of a binary32. */
static double bfloat16ToDouble(uint16_t bits) {
  uint32_t wide = (uint32_t)bits << 16;
  float value;
  memcpy(&value, &wide, sizeof value);
  return value;
}

/* Reads one element as a double (integers exactly up to 2^53). */
static double elementValue(const char *element, MemoptRtElementType type) {
  switch (type) {
  case MemoptRtF64: { double v; memcpy(&v, element, 8); return v; }
  case MemoptRtF32: { float v; memcpy(&v, element, 4); return v; }
  case MemoptRtF16: { uint16_t v; memcpy(&v, element, 2); return halfToDouble(v); }
  case MemoptRtBF16: { uint16_t v; memcpy(&v, element, 2); return bfloat16ToDouble(v); }
  case MemoptRtI64: { int64_t v; memcpy(&v, element, 8); return (double)v; }
  case MemoptRtI32: { int32_t v; memcpy(&v, element, 4); return v; }
  case MemoptRtI16: { int16_t v; memcpy(&v, element, 2); return v; }
  case MemoptRtI8: { int8_t v; memcpy(&v, element, 1); return v; }
  case MemoptRtI1: return (*(const unsigned char *)element) & 1;
  }
  return 0;
}

/* Calls `visit` on every element in row-major order of the logical shape. */
typedef void (*ElementVisitor)(const char *element, void *state);

static void forEachElement(const StridedView *view, size_t elementSize, ElementVisitor visit,
                           void *state) {
  if (elementCount(view) == 0)
    return;
  int64_t *index = calloc(view->rank > 0 ? (size_t)view->rank : 1, sizeof *index);
  if (!index) {
    fprintf(stderr, "memopt-rt: fatal: out of memory\n");
    abort();
  }
  int64_t position = view->offset;
  for (;;) {
    visit(view->aligned + position * (int64_t)elementSize, state);
    /* Odometer step: bump the innermost index, carrying outwards. */
    int64_t d = view->rank - 1;
    for (; d >= 0; --d) {
      position += view->strides[d];
      if (++index[d] < view->sizes[d])
        break;
      position -= view->strides[d] * index[d];
      index[d] = 0;
    }
    if (d < 0)
      break;
  }
  free(index);
}

typedef struct ChecksumState {
  MemoptRtElementType type;
  size_t elementSize;
  MemoptRtChecksum result;
  double sumCompensation, absSumCompensation;
} ChecksumState;

/* Neumaier's compensated addition: the running sum stays accurate (and
 * independent of magnitude ordering effects) over millions of elements. */
static void addCompensated(double *sum, double *compensation, double value) {
  double total = *sum + value;
  if (fabs(*sum) >= fabs(value))
    *compensation += (*sum - total) + value;
  else
    *compensation += (value - total) + *sum;
  *sum = total;
}

static void checksumElement(const char *element, void *opaque) {
  ChecksumState *state = opaque;
  enum { FnvPrime = 0x100000001b3ull };
  unsigned char bytes[8];
  memcpy(bytes, element, state->elementSize);
  if (state->type == MemoptRtI1)
    bytes[0] &= 1; /* only the low bit of an i1 byte is the value */
  for (size_t i = 0; i < state->elementSize; ++i)
    state->result.hash = (state->result.hash ^ bytes[i]) * (uint64_t)FnvPrime;
  ++state->result.count;
  double value = elementValue(element, state->type);
  if (!isfinite(value)) {
    ++state->result.nonfinite;
    return;
  }
  addCompensated(&state->result.sum, &state->sumCompensation, value);
  addCompensated(&state->result.absSum, &state->absSumCompensation, fabs(value));
}

MemoptRtChecksum memoptRtChecksumCompute(const MemoptRtUnrankedMemRef *memref,
                                         MemoptRtElementType type) {
  ChecksumState state;
  memset(&state, 0, sizeof state);
  state.type = type;
  state.elementSize = memoptRtElementSize(type);
  state.result.hash = 0xcbf29ce484222325ull; /* FNV-1a 64 offset basis */
  StridedView view = viewOf(memref);
  forEachElement(&view, state.elementSize, checksumElement, &state);
  state.result.sum += state.sumCompensation;
  state.result.absSum += state.absSumCompensation;
  return state.result;
}

void memoptRtChecksumPrint(int64_t index, const MemoptRtUnrankedMemRef *memref,
                           MemoptRtElementType type) {
  MemoptRtChecksum checksum = memoptRtChecksumCompute(memref, type);
  StridedView view = viewOf(memref);
  printf("memopt-rt: output index=%lld element=%s shape=", (long long)index,
         memoptRtElementTypeName(type));
  for (int64_t d = 0; d < view.rank; ++d)
    printf("%s%lld", d ? "x" : "", (long long)view.sizes[d]);
  printf(" count=%lld hash=0x%016llx sum=%.17g abs_sum=%.17g nonfinite=%lld\n",
         (long long)checksum.count, (unsigned long long)checksum.hash, checksum.sum,
         checksum.absSum, (long long)checksum.nonfinite);
  fflush(stdout);
}

static void printElement(const char *element, MemoptRtElementType type) {
  double value = elementValue(element, type);
  switch (type) {
  case MemoptRtF64: printf("%.17g", value); break;
  case MemoptRtF32: printf("%.9g", value); break;
  case MemoptRtF16:
  case MemoptRtBF16: printf("%.5g", value); break;
  default: printf("%.0f", value); break;
  }
}

/* Prints dimension `d` onwards of the sub-array starting at `position`. */
static void printNested(const StridedView *view, MemoptRtElementType type, int64_t d,
                        int64_t position) {
  size_t elementSize = memoptRtElementSize(type);
  putchar('[');
  for (int64_t i = 0; i < view->sizes[d]; ++i) {
    if (i) {
      putchar(',');
      if (d + 1 < view->rank)
        printf("\n%*s", (int)(d + 1), ""); /* one row per line, aligned under the '[' */
      else
        putchar(' ');
    }
    int64_t at = position + i * view->strides[d];
    if (d + 1 < view->rank)
      printNested(view, type, d + 1, at);
    else
      printElement(view->aligned + at * (int64_t)elementSize, type);
  }
  putchar(']');
}

void memoptRtValuesPrint(int64_t index, const MemoptRtUnrankedMemRef *memref,
                         MemoptRtElementType type) {
  StridedView view = viewOf(memref);
  printf("memopt-rt: values index=%lld begin\n", (long long)index);
  if (view.rank == 0)
    printElement(view.aligned + view.offset * (int64_t)memoptRtElementSize(type), type);
  else
    printNested(&view, type, 0, view.offset);
  printf("\nmemopt-rt: values index=%lld end\n", (long long)index);
  fflush(stdout);
}

/* The typed C-interface entry points, one per element type, as IR cannot pass
 * the element type as a value. */
#define MEMOPT_RT_DEFINE_OUTPUT_ENTRY_POINTS(suffix, type)                                  \
  void _mlir_ciface_memoptRtChecksum##suffix(int64_t index, MemoptRtUnrankedMemRef *memref) { \
    memoptRtChecksumPrint(index, memref, type);                                             \
  }                                                                                         \
  void _mlir_ciface_memoptRtPrint##suffix(int64_t index, MemoptRtUnrankedMemRef *memref) {    \
    memoptRtValuesPrint(index, memref, type);                                               \
  }

MEMOPT_RT_DEFINE_OUTPUT_ENTRY_POINTS(F64, MemoptRtF64)
MEMOPT_RT_DEFINE_OUTPUT_ENTRY_POINTS(F32, MemoptRtF32)
MEMOPT_RT_DEFINE_OUTPUT_ENTRY_POINTS(F16, MemoptRtF16)
MEMOPT_RT_DEFINE_OUTPUT_ENTRY_POINTS(BF16, MemoptRtBF16)
MEMOPT_RT_DEFINE_OUTPUT_ENTRY_POINTS(I64, MemoptRtI64)
MEMOPT_RT_DEFINE_OUTPUT_ENTRY_POINTS(I32, MemoptRtI32)
MEMOPT_RT_DEFINE_OUTPUT_ENTRY_POINTS(I16, MemoptRtI16)
MEMOPT_RT_DEFINE_OUTPUT_ENTRY_POINTS(I8, MemoptRtI8)
MEMOPT_RT_DEFINE_OUTPUT_ENTRY_POINTS(I1, MemoptRtI1)
