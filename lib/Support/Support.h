/* memopt support: growable strings, whole-file I/O, small text utilities,
 * longest common extensions of sequences, SVG timelines, sparse matrices and
 * binary integer programs with their solvers (GLPK, CBC).
 *
 * Ownership: every function that returns a heap pointer says so; the caller
 * frees it with free(). Errors are returned, never printed from here. */
#ifndef MEMOPT_SUPPORT_SUPPORT_H
#define MEMOPT_SUPPORT_SUPPORT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===------------------------------------------------------------------===*
 * MemoptStringBuffer: a growable, always NUL-terminated byte string.
 *===------------------------------------------------------------------===*/

typedef struct MemoptStringBuffer {
  char *data;      /* NUL-terminated; NULL until the first append */
  size_t length;   /* bytes before the terminating NUL */
  size_t capacity; /* bytes allocated at data */
} MemoptStringBuffer;

/// Returns an empty buffer that owns no memory yet.
MemoptStringBuffer memoptStringBufferCreate(void);

/// Frees the buffer's memory and leaves it empty.
void memoptStringBufferDestroy(MemoptStringBuffer *buffer);

/// Appends `length` bytes from `bytes`.
void memoptStringBufferAppend(MemoptStringBuffer *buffer, const char *bytes, size_t length);

/// Appends a NUL-terminated string.
void memoptStringBufferAppendCString(MemoptStringBuffer *buffer, const char *string);

/// Appends printf-formatted text.
void memoptStringBufferAppendFormat(MemoptStringBuffer *buffer, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/// Appends vprintf-formatted text.
void memoptStringBufferAppendFormatV(MemoptStringBuffer *buffer, const char *format, va_list args);

/// Empties the buffer, keeping its memory.
void memoptStringBufferClear(MemoptStringBuffer *buffer);

/// Returns the contents (never NULL; "" when empty), still owned by the buffer.
const char *memoptStringBufferGet(const MemoptStringBuffer *buffer);

/// Hands the contents to the caller (who frees them) and leaves the buffer empty.
char *memoptStringBufferRelease(MemoptStringBuffer *buffer);

/*===------------------------------------------------------------------===*
 * Heap arrays (each reports and aborts when memory runs out, unless named Try)
 *===------------------------------------------------------------------===*/

/// Returns `count` zeroed items of `size` bytes (one when `count` is 0); the caller frees it.
void *memoptAllocateZeroed(size_t count, size_t size);

/// Like memoptAllocateZeroed, but returns NULL when `count * size` overflows or memory runs out:
/// only for sizes the input chooses, where the caller has a fallback.
void *memoptTryAllocateZeroed(size_t count, size_t size);

/// Returns `items` resized to `count` items of `size` bytes (one when `count` is 0).
void *memoptReallocArray(void *items, size_t count, size_t size);

/// Returns `items` with room for at least `needed` items of `size` bytes: `*capacity` doubles (from
/// 16) until it holds them.
void *memoptGrowArray(void *items, size_t *capacity, size_t needed, size_t size);

/*===------------------------------------------------------------------===*
 * Arithmetic
 *===------------------------------------------------------------------===*/

/// Returns the divisors of `n` (>= 1; 1 otherwise) in ascending order and
/// their number in `count`; the caller frees the array. Takes time
/// polylogarithmic in `n` (it factors `n`), not linear.
int64_t *memoptDivisors(int64_t n, size_t *count);

/*===------------------------------------------------------------------===*
 * Files
 *===------------------------------------------------------------------===*/

/// Reads a whole file ("-" is standard input) into `out`; returns false and
/// fills `error` with the reason when it cannot.
bool memoptFileRead(const char *path, MemoptStringBuffer *out, MemoptStringBuffer *error);

/// Writes `length` bytes to output `path` ("-" is standard output): a regular
/// file (or a new one, or the regular target of a symlink) through a temporary
/// renamed over it once complete; a device, FIFO or other node in place.
/// Returns false and fills `error` on failure, leaving no partial file behind.
bool memoptFileWriteOutput(const char *path, const char *bytes, size_t length,
                           MemoptStringBuffer *error);

struct json_t; /* jansson's value */

/// Writes `root` as JSON text (jansson's json_dumps with `flags`, e.g. JSON_INDENT(2)) and a
/// newline to output `path` through memoptFileWriteOutput; returns false and fills `error` on
/// failure. Borrows `root`.
bool memoptJsonWriteFile(const struct json_t *root, const char *path, size_t flags,
                         MemoptStringBuffer *error);

/*===------------------------------------------------------------------===*
 * Text
 *===------------------------------------------------------------------===*/

/// Returns the Levenshtein distance between two NUL-terminated strings.
size_t memoptEditDistance(const char *a, const char *b);

/// Returns true when `string` starts with `prefix`.
bool memoptStartsWith(const char *string, const char *prefix);

/// Returns a heap copy of the first `length` bytes of `string`, NUL-terminated.
char *memoptStrndup(const char *string, size_t length);

/// Parses a whole string as a signed 64-bit integer; false on junk or overflow.
bool memoptParseInt64(const char *text, long long *out);

/// Parses a whole string as a finite double; false on junk.
bool memoptParseDouble(const char *text, double *out);

/// Parses a whole string as memoptParseInt64 does; false on junk, overflow or a value outside
/// [min, max] (then `*out` is unchanged).
bool memoptParseInt64InRange(const char *text, long long min, long long max, long long *out);

/*===------------------------------------------------------------------===*
 * Longest common extensions (CommonExtension.c)
 *===------------------------------------------------------------------===*/

/// The longest common prefix of any two suffixes of a sequence of 64-bit
/// symbols, in constant time: suffix ranks and a sparse table of range minima
/// over the LCP array. Owns its arrays.
typedef struct MemoptCommonExtension {
  size_t count;   /* symbols */
  size_t *rank;   /* per suffix: its place among the suffixes in sorted order */
  size_t *minima; /* level l, rank r: least LCP of adjacent ranks in (r - 1, r + 2^l - 1] */
} MemoptCommonExtension;

/// Builds the queries over `symbols[0, count)` (not kept) in O(count log count) time and space.
MemoptCommonExtension memoptCommonExtensionCreate(const uint64_t *symbols, size_t count);

/// Returns how many symbols the suffixes at `first` and `second` (both < count) share from their start.
size_t memoptCommonExtensionQuery(const MemoptCommonExtension *lce, size_t first, size_t second);

/// Frees what `lce` holds and leaves it empty.
void memoptCommonExtensionDestroy(MemoptCommonExtension *lce);

/*===------------------------------------------------------------------===*
 * SVG
 *===------------------------------------------------------------------===*/

/// One line of a timeline chart: a name, an SVG color and one value per position.
typedef struct MemoptTimelineSeries {
  const char *name;
  const char *color;
  const unsigned long long *values;
  size_t count;
} MemoptTimelineSeries;

/// Appends a standalone SVG line chart of bytes by position to `out`: one
/// line per series, and a dashed line at `budget` (0: none).
void memoptSvgTimeline(const char *title, const MemoptTimelineSeries *series, size_t seriesCount,
                       unsigned long long budget, MemoptStringBuffer *out);

/// The live bytes of one function by op position, as one chart of a stacked document.
typedef struct MemoptFunctionTimeline {
  const char *function; /* the function's name, without '@' */
  const MemoptTimelineSeries *series;
  size_t seriesCount;
  unsigned long long budget; /* 0: none */
} MemoptFunctionTimeline;

/// Writes one SVG document to `path` (memoptFileWriteOutput) with the charts of `count`
/// functions stacked top to bottom; false with the reason in `error`.
bool memoptSvgTimelinesWriteFile(const char *path, const MemoptFunctionTimeline *charts,
                                 size_t count, MemoptStringBuffer *error);

/*===------------------------------------------------------------------===*
 * Sparse matrices of linear programs (SparseMatrix.c)
 *===------------------------------------------------------------------===*/

/// The constraint coefficients of a linear program as (row, column, value)
/// triplets in 1-based arrays, the layout GLPK's glp_load_matrix reads: entry
/// i is at index i, for i from 1 to count. Zero-initialize before use.
typedef struct MemoptSparseMatrix {
  int *rows;
  int *columns;
  double *values;
  size_t count;
  size_t capacity;
} MemoptSparseMatrix;

/// Appends the coefficient `value` at (`row`, `column`).
void memoptSparseMatrixAdd(MemoptSparseMatrix *matrix, int row, int column, double value);

/// Frees what `matrix` holds and leaves it empty.
void memoptSparseMatrixDestroy(MemoptSparseMatrix *matrix);

/*===------------------------------------------------------------------===*
 * Binary integer programs and their solvers (BinaryProgram.c,
 * BinaryProgramGlpk.c, BinaryProgramCbc.c)
 *===------------------------------------------------------------------===*/

/// Minimize sum objective[c] x[c] over x[c] in {0, 1} (or fixed) subject to
/// rows sum matrix[r][c] x[c] <= rowUpper[r]. Columns and rows are numbered
/// from 1 (GLPK's convention, index 0 of every array unused). Zero-initialize
/// before use; the program owns its arrays.
typedef struct MemoptBinaryProgram {
  size_t columnCount, rowCount;
  size_t columnCapacity, rowCapacity;
  double *objective; /* per column */
  double *lower;     /* per column: 0, or 1 when fixed to 1 */
  double *upper;     /* per column: 1, or 0 when fixed to 0 */
  double *rowUpper;  /* per row */
  MemoptSparseMatrix matrix;
} MemoptBinaryProgram;

/// The solvers that memoptBinaryProgramSolve can hand a program to.
typedef enum MemoptIlpSolver { MemoptIlpSolverGlpk, MemoptIlpSolverCbc } MemoptIlpSolver;

/// What a solver proved about its answer.
typedef enum MemoptIlpStatus {
  MemoptIlpProvenOptimal,    /* the solution is optimal */
  MemoptIlpWithinGap,        /* proven within the relative gap of the optimum */
  MemoptIlpFeasibleInTime,   /* the best found before the time limit, not proven */
  MemoptIlpNoSolutionInTime, /* nothing found before the time limit */
  MemoptIlpInfeasible,       /* no assignment satisfies the rows */
} MemoptIlpStatus;

/// A solver's answer; `values` (per column, index 0 unused) is owned and NULL without a solution.
typedef struct MemoptIlpSolution {
  MemoptIlpStatus status;
  double objective;
  double bound; /* proven lower bound on the optimum's objective; NAN when the solver had none */
  double *values;
} MemoptIlpSolution;

/// Appends `count` free binary columns of objective 0 and returns the number of the first.
int memoptBinaryProgramAddColumns(MemoptBinaryProgram *program, size_t count);

/// Sets the objective coefficient of `column`.
void memoptBinaryProgramSetObjective(MemoptBinaryProgram *program, int column, double cost);

/// Fixes `column` to `value` (0 or 1) by its bounds.
void memoptBinaryProgramFix(MemoptBinaryProgram *program, int column, double value);

/// Appends the row "sum <= `upper`" with no coefficients yet and returns its number.
int memoptBinaryProgramAddRow(MemoptBinaryProgram *program, double upper);

/// Adds the coefficient `value` of `column` in `row`.
void memoptBinaryProgramAddCoefficient(MemoptBinaryProgram *program, int row, int column,
                                       double value);

/// Frees what `program` holds and leaves it empty.
void memoptBinaryProgramDestroy(MemoptBinaryProgram *program);

/// Solves `program` with `solver` within `timeLimitSeconds`, stopping at `relativeGap`; false with
/// the reason in `error` when the solver fails (not when it finds nothing in time).
bool memoptBinaryProgramSolve(const MemoptBinaryProgram *program, MemoptIlpSolver solver,
                              double timeLimitSeconds, double relativeGap,
                              MemoptIlpSolution *solution, MemoptStringBuffer *error);

/// memoptBinaryProgramSolve with GLPK (BinaryProgramGlpk.c).
bool memoptBinaryProgramSolveGlpk(const MemoptBinaryProgram *program, double timeLimitSeconds,
                                  double relativeGap, MemoptIlpSolution *solution,
                                  MemoptStringBuffer *error);

/// memoptBinaryProgramSolve with COIN-OR CBC (BinaryProgramCbc.c).
bool memoptBinaryProgramSolveCbc(const MemoptBinaryProgram *program, double timeLimitSeconds,
                                 double relativeGap, MemoptIlpSolution *solution,
                                 MemoptStringBuffer *error);

/// Frees the values of `solution`.
void memoptIlpSolutionDestroy(MemoptIlpSolution *solution);

#ifdef __cplusplus
}
#endif

#endif /* MEMOPT_SUPPORT_SUPPORT_H */
