/* Unit tests of lib/Support. argv[1] is a scratch directory for file tests. */
#include "Support/Support.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *scratchDir;

static void stringBufferGrowsAndFormats(void **state) {
  MemoptStringBuffer buffer = memoptStringBufferCreate();
  assert_string_equal(memoptStringBufferGet(&buffer), "");
  for (int i = 0; i < 1000; ++i)
    memoptStringBufferAppendFormat(&buffer, "%d,", i % 10);
  assert_int_equal(buffer.length, 2000);
  assert_memory_equal(buffer.data, "0,1,2,", 6);
  memoptStringBufferClear(&buffer);
  assert_int_equal(buffer.length, 0);
  memoptStringBufferAppend(&buffer, "ab\0cd", 5);
  assert_int_equal(buffer.length, 5);
  assert_int_equal(buffer.data[5], '\0');
  memoptStringBufferDestroy(&buffer);
}

static void stringBufferReleaseTransfersOwnership(void **state) {
  MemoptStringBuffer buffer = memoptStringBufferCreate();
  char *empty = memoptStringBufferRelease(&buffer);
  assert_string_equal(empty, "");
  free(empty);
  memoptStringBufferAppendCString(&buffer, "memopt");
  char *text = memoptStringBufferRelease(&buffer);
  assert_string_equal(text, "memopt");
  assert_null(buffer.data);
  free(text);
}

static void editDistanceCountsEdits(void **state) {
  assert_int_equal(memoptEditDistance("", ""), 0);
  assert_int_equal(memoptEditDistance("abc", ""), 3);
  assert_int_equal(memoptEditDistance("autochunk", "autochunck"), 1);
  assert_int_equal(memoptEditDistance("kitten", "sitting"), 3);
  assert_int_equal(memoptEditDistance("canonicalise", "canonicalize"), 1);
}

static void heapArraysGrowAndZero(void **state) {
  int *zeroed = memoptAllocateZeroed(0, sizeof *zeroed); /* one item, never NULL */
  assert_non_null(zeroed);
  assert_int_equal(zeroed[0], 0);
  free(zeroed);
  size_t capacity = 0;
  int *items = NULL;
  for (int i = 0; i < 100; ++i) {
    items = memoptGrowArray(items, &capacity, (size_t)i + 1, sizeof *items);
    items[i] = i;
  }
  assert_int_equal(capacity, 128); /* 16 doubled until 100 items fit */
  for (int i = 0; i < 100; ++i)
    assert_int_equal(items[i], i);
  /* A jump past the doubled capacity doubles until it fits. */
  items = memoptGrowArray(items, &capacity, 1000, sizeof *items);
  assert_int_equal(capacity, 1024);
  assert_int_equal(items[99], 99);
  items = memoptReallocArray(items, 3, sizeof *items);
  assert_int_equal(items[2], 2);
  free(items);
}

/* Requests whose byte count does not fit in size_t: the Try variant answers
 * NULL, the others report on stderr and abort (checked in a child). */
static void overflowingAllocation(int which) {
  size_t capacity = SIZE_MAX / 2 + 1;
  if (which == 0)
    memoptAllocateZeroed(SIZE_MAX / 2 + 1, 2);
  else if (which == 1)
    memoptReallocArray(NULL, SIZE_MAX / 8 + 1, 8);
  else
    memoptGrowArray(NULL, &capacity, SIZE_MAX, 1);
}

static void heapArraysRefuseOverflow(void **state) {
  assert_null(memoptTryAllocateZeroed(SIZE_MAX / 2 + 1, 2));
  assert_null(memoptTryAllocateZeroed(2, SIZE_MAX / 2 + 1));
  for (int which = 0; which < 3; ++which) {
    int pipeEnds[2];
    assert_int_equal(pipe(pipeEnds), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
      dup2(pipeEnds[1], STDERR_FILENO);
      overflowingAllocation(which);
      _exit(0);
    }
    close(pipeEnds[1]);
    char message[256] = {0};
    ssize_t length = read(pipeEnds[0], message, sizeof message - 1);
    close(pipeEnds[0]);
    int status;
    waitpid(child, &status, 0);
    assert_true(length > 0);
    assert_non_null(strstr(message, "memopt: out of memory"));
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
  }
}

/* The divisors of `n` by trial division up to its square root, ascending. */
static size_t trialDivisors(int64_t n, int64_t *out) {
  size_t low = 0, high = 0;
  int64_t large[4096];
  for (int64_t d = 1; d <= n / d; ++d)
    if (n % d == 0) {
      out[low++] = d;
      if (d != n / d)
        large[high++] = n / d;
    }
  while (high)
    out[low++] = large[--high];
  return low;
}

static void expectDivisors(int64_t n, const int64_t *expected, size_t expectedCount) {
  size_t count = 0;
  int64_t *divisors = memoptDivisors(n, &count);
  assert_int_equal(count, expectedCount);
  for (size_t i = 0; i < count; ++i)
    assert_int_equal(divisors[i], expected[i]);
  free(divisors);
}

static void divisorsMatchTrialDivision(void **state) {
  (void)state;
  int64_t expected[8192];
  for (int64_t n = 1; n < 20000; ++n)
    expectDivisors(n, expected, trialDivisors(n, expected));
  /* 963761198400 = 2^6 3^4 5^2 7 11 13 17 19 23 has 7 5 3 2^6 = 6720 divisors. */
  size_t count = trialDivisors(963761198400, expected);
  assert_int_equal(count, 6720);
  expectDivisors(963761198400, expected, count);
}

static void divisorsOfLargePrimesAndSemiprimes(void **state) {
  (void)state;
  /* Below 1 there is only 1. */
  expectDivisors(0, (const int64_t[]){1}, 1);
  expectDivisors(-12, (const int64_t[]){1}, 1);
  /* 2^61 - 1 (a Mersenne prime) and 2^63 - 25, the largest prime below 2^63. */
  expectDivisors(2305843009213693951, (const int64_t[]){1, 2305843009213693951}, 2);
  expectDivisors(9223372036854775783, (const int64_t[]){1, 9223372036854775783}, 2);
  /* Two primes near 10^9, and the square of 2^31 - 1. */
  expectDivisors(998244353LL * 1000000007LL,
                 (const int64_t[]){1, 998244353, 1000000007, 998244353LL * 1000000007LL}, 4);
  expectDivisors(2147483647LL * 2147483647LL,
                 (const int64_t[]){1, 2147483647, 2147483647LL * 2147483647LL}, 3);
  /* 2^62: 63 divisors, the powers of two. */
  int64_t powers[63];
  for (int i = 0; i < 63; ++i)
    powers[i] = INT64_C(1) << i;
  expectDivisors(INT64_C(1) << 62, powers, 63);
}

/* Longest common extensions against direct comparison, for every pair of
 * suffixes of fixed-seed random sequences over alphabets of 1 to 4 symbols
 * (so that long common prefixes are frequent) and of periodic sequences. */
static uint64_t lceSeed = 2024;

static size_t lceRandom(size_t bound) {
  lceSeed = lceSeed * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
  return (size_t)((lceSeed >> 33) % bound);
}

static void expectCommonExtensions(const uint64_t *symbols, size_t count) {
  MemoptCommonExtension lce = memoptCommonExtensionCreate(symbols, count);
  for (size_t i = 0; i < count; ++i)
    for (size_t j = 0; j < count; ++j) {
      size_t shared = 0;
      while (i + shared < count && j + shared < count && symbols[i + shared] == symbols[j + shared])
        ++shared;
      assert_int_equal(memoptCommonExtensionQuery(&lce, i, j), shared);
    }
  memoptCommonExtensionDestroy(&lce);
  assert_null(lce.rank);
}

static void commonExtensionsMatchDirectComparison(void **state) {
  (void)state;
  uint64_t symbols[160] = {0};
  expectCommonExtensions(symbols, 0);
  for (size_t trial = 0; trial < 400; ++trial) {
    size_t count = lceRandom(sizeof symbols / sizeof *symbols + 1);
    size_t alphabet = 1 + lceRandom(4), period = 1 + lceRandom(12);
    /* Large symbol values: the order must not depend on their magnitude. */
    for (size_t i = 0; i < count; ++i)
      symbols[i] = trial % 2 ? UINT64_MAX - lceRandom(alphabet)
                             : (i < period ? lceRandom(alphabet) : symbols[i - period]);
    expectCommonExtensions(symbols, count);
  }
}

static void numbersParseStrictly(void **state) {
  long long integer;
  double real;
  assert_true(memoptParseInt64("42", &integer));
  assert_int_equal(integer, 42);
  assert_true(memoptParseInt64("-7", &integer));
  assert_int_equal(integer, -7);
  assert_true(memoptParseInt64("0x10", &integer));
  assert_int_equal(integer, 16);
  assert_false(memoptParseInt64("", &integer));
  assert_false(memoptParseInt64("12a", &integer));
  assert_false(memoptParseInt64("99999999999999999999", &integer));
  assert_true(memoptParseDouble("0.5", &real));
  assert_true(real == 0.5);
  assert_false(memoptParseDouble("inf", &real));
  assert_false(memoptParseDouble("1.0x", &real));
}

static void boundedNumbersRejectJunkOverflowAndRange(void **state) {
  long long value = 5;
  assert_true(memoptParseInt64InRange("1", 1, 200, &value));
  assert_int_equal(value, 1);
  assert_true(memoptParseInt64InRange("200", 1, 200, &value));
  assert_int_equal(value, 200);
  assert_true(memoptParseInt64InRange("-3", -3, 3, &value));
  assert_int_equal(value, -3);
  assert_true(memoptParseInt64InRange("0x10", 0, 16, &value));
  assert_int_equal(value, 16);
  assert_true(memoptParseInt64InRange("9223372036854775807", 0, LLONG_MAX, &value));
  assert_true(value == LLONG_MAX);
  value = 5;
  assert_false(memoptParseInt64InRange("", 0, 10, &value));
  assert_false(memoptParseInt64InRange("7x", 0, 10, &value));
  assert_false(memoptParseInt64InRange("7 ", 0, 10, &value));
  assert_false(memoptParseInt64InRange("9223372036854775808", 0, LLONG_MAX, &value));
  assert_false(memoptParseInt64InRange("-9223372036854775809", LLONG_MIN, 0, &value));
  assert_false(memoptParseInt64InRange("0", 1, 200, &value));
  assert_false(memoptParseInt64InRange("201", 1, 200, &value));
  assert_false(memoptParseInt64InRange("-1", 0, 10, &value));
  assert_int_equal(value, 5); /* untouched by every rejection */
}

static char *scratchPath(const char *name) {
  MemoptStringBuffer path = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&path, "%s/%s", scratchDir, name);
  return memoptStringBufferRelease(&path);
}

static size_t countEntries(const char *directory) {
  DIR *dir = opendir(directory);
  assert_non_null(dir);
  size_t count = 0;
  for (struct dirent *entry; (entry = readdir(dir));)
    count += entry->d_name[0] != '.';
  closedir(dir);
  return count;
}

static void outputWriteReplacesWholeFile(void **state) {
  char *path = scratchPath("out.txt");
  MemoptStringBuffer error = memoptStringBufferCreate();
  assert_true(memoptFileWriteOutput(path, "first version\n", 14, &error));
  assert_true(memoptFileWriteOutput(path, "second\n", 7, &error));
  MemoptStringBuffer read = memoptStringBufferCreate();
  assert_true(memoptFileRead(path, &read, &error));
  assert_string_equal(read.data, "second\n");
  /* No temporary file is left beside the output. */
  assert_int_equal(countEntries(scratchDir), 1);
  struct stat info;
  assert_int_equal(stat(path, &info), 0);
  assert_true((info.st_mode & 0444) != 0); /* not left private like mkstemp's file */
  memoptStringBufferDestroy(&read);
  memoptStringBufferDestroy(&error);
  free(path);
}

static void outputWriteFailureLeavesNothing(void **state) {
  char *path = scratchPath("missing-dir/out.txt");
  MemoptStringBuffer error = memoptStringBufferCreate();
  assert_false(memoptFileWriteOutput(path, "x", 1, &error));
  assert_non_null(strstr(error.data, "missing-dir/out.txt"));
  memoptStringBufferDestroy(&error);
  free(path);
}

/* A symlink to a regular file stays a symlink: the target is rewritten. */
static void outputWriteKeepsSymlink(void **state) {
  char *target = scratchPath("link-target.txt");
  char *link = scratchPath("link.txt");
  MemoptStringBuffer error = memoptStringBufferCreate();
  assert_true(memoptFileWriteOutput(target, "old\n", 4, &error));
  assert_int_equal(symlink(target, link), 0);
  assert_true(memoptFileWriteOutput(link, "new\n", 4, &error));
  struct stat info;
  assert_int_equal(lstat(link, &info), 0);
  assert_true(S_ISLNK(info.st_mode));
  MemoptStringBuffer read = memoptStringBufferCreate();
  assert_true(memoptFileRead(target, &read, &error));
  assert_string_equal(read.data, "new\n");
  unlink(link);
  unlink(target);
  memoptStringBufferDestroy(&read);
  memoptStringBufferDestroy(&error);
  free(link);
  free(target);
}

/* A FIFO stays a FIFO: the bytes go to its reader (a child process here). */
static void outputWriteKeepsFifo(void **state) {
  char *fifo = scratchPath("out.fifo");
  assert_int_equal(mkfifo(fifo, 0600), 0);
  int pipeToParent[2];
  assert_int_equal(pipe(pipeToParent), 0);
  pid_t reader = fork();
  assert_true(reader >= 0);
  if (reader == 0) {
    FILE *in = fopen(fifo, "rb");
    char buffer[64] = {0};
    size_t got = in ? fread(buffer, 1, sizeof buffer - 1, in) : 0;
    ssize_t sent = write(pipeToParent[1], buffer, got);
    _exit(sent == (ssize_t)got ? 0 : 1);
  }
  close(pipeToParent[1]);
  MemoptStringBuffer error = memoptStringBufferCreate();
  assert_true(memoptFileWriteOutput(fifo, "through\n", 8, &error));
  char received[64] = {0};
  ssize_t got = read(pipeToParent[0], received, sizeof received - 1);
  assert_int_equal(got, 8);
  assert_string_equal(received, "through\n");
  close(pipeToParent[0]);
  int status = 0;
  waitpid(reader, &status, 0);
  struct stat info;
  assert_int_equal(lstat(fifo, &info), 0);
  assert_true(S_ISFIFO(info.st_mode));
  unlink(fifo);
  memoptStringBufferDestroy(&error);
  free(fifo);
}

static void readMissingFileExplains(void **state) {
  char *path = scratchPath("does-not-exist.mlir");
  MemoptStringBuffer out = memoptStringBufferCreate();
  MemoptStringBuffer error = memoptStringBufferCreate();
  assert_false(memoptFileRead(path, &out, &error));
  assert_non_null(strstr(error.data, "cannot open"));
  assert_non_null(strstr(error.data, "No such file"));
  memoptStringBufferDestroy(&out);
  memoptStringBufferDestroy(&error);
  free(path);
}

/* min 3a + 2b + 4c + d over binaries, with a + b >= 1, b + c >= 1 and
 * a + b + c <= 2 (as <= rows), d fixed to 1 and b to 0: only a = c = 1
 * is left, cost 8. The entries go in by rows; CBC reads them by columns. */
static void buildCoverProgram(MemoptBinaryProgram *program) {
  int a = memoptBinaryProgramAddColumns(program, 4), b = a + 1, c = a + 2, d = a + 3;
  memoptBinaryProgramSetObjective(program, a, 3);
  memoptBinaryProgramSetObjective(program, b, 2);
  memoptBinaryProgramSetObjective(program, c, 4);
  memoptBinaryProgramSetObjective(program, d, 1);
  memoptBinaryProgramFix(program, d, 1);
  memoptBinaryProgramFix(program, b, 0);
  int row = memoptBinaryProgramAddRow(program, -1);
  memoptBinaryProgramAddCoefficient(program, row, a, -1);
  memoptBinaryProgramAddCoefficient(program, row, b, -1);
  row = memoptBinaryProgramAddRow(program, -1);
  memoptBinaryProgramAddCoefficient(program, row, b, -1);
  memoptBinaryProgramAddCoefficient(program, row, c, -1);
  row = memoptBinaryProgramAddRow(program, 2);
  for (int column = a; column <= c; ++column)
    memoptBinaryProgramAddCoefficient(program, row, column, 1);
}

static void binaryProgramSolversAgree(void **state) {
  MemoptBinaryProgram program = {0};
  buildCoverProgram(&program);
  const MemoptIlpSolver solvers[] = {MemoptIlpSolverGlpk, MemoptIlpSolverCbc};
  for (size_t k = 0; k < 2; ++k) {
    MemoptIlpSolution solution;
    MemoptStringBuffer error = memoptStringBufferCreate();
    assert_true(memoptBinaryProgramSolve(&program, solvers[k], 10, 0, &solution, &error));
    assert_int_equal(solution.status, MemoptIlpProvenOptimal);
    assert_float_equal(solution.objective, 8, 1e-9);
    assert_float_equal(solution.bound, 8, 1e-6);
    const double expected[] = {0, 1, 0, 1, 1};
    for (int column = 1; column <= 4; ++column)
      assert_float_equal(solution.values[column], expected[column], 1e-9);
    memoptIlpSolutionDestroy(&solution);
    memoptStringBufferDestroy(&error);
  }
  memoptBinaryProgramDestroy(&program);
}

static void binaryProgramInfeasibleForBothSolvers(void **state) {
  MemoptBinaryProgram program = {0};
  buildCoverProgram(&program);
  /* a + c <= 1 contradicts the covers once b is fixed to 0. */
  int row = memoptBinaryProgramAddRow(&program, 1);
  memoptBinaryProgramAddCoefficient(&program, row, 1, 1);
  memoptBinaryProgramAddCoefficient(&program, row, 3, 1);
  const MemoptIlpSolver solvers[] = {MemoptIlpSolverGlpk, MemoptIlpSolverCbc};
  for (size_t k = 0; k < 2; ++k) {
    MemoptIlpSolution solution;
    MemoptStringBuffer error = memoptStringBufferCreate();
    assert_true(memoptBinaryProgramSolve(&program, solvers[k], 10, 0, &solution, &error));
    assert_int_equal(solution.status, MemoptIlpInfeasible);
    assert_null(solution.values);
    memoptStringBufferDestroy(&error);
  }
  memoptBinaryProgramDestroy(&program);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: memopt-unit-support <scratch directory>\n");
    return 2;
  }
  /* A fresh, empty scratch directory for the file tests. */
  char command[4096];
  snprintf(command, sizeof command, "rm -rf '%s' && mkdir -p '%s'", argv[1], argv[1]);
  if (system(command) != 0)
    return 2;
  scratchDir = argv[1];
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(stringBufferGrowsAndFormats),
      cmocka_unit_test(stringBufferReleaseTransfersOwnership),
      cmocka_unit_test(editDistanceCountsEdits),
      cmocka_unit_test(heapArraysGrowAndZero),
      cmocka_unit_test(heapArraysRefuseOverflow),
      cmocka_unit_test(numbersParseStrictly),
      cmocka_unit_test(boundedNumbersRejectJunkOverflowAndRange),
      cmocka_unit_test(divisorsMatchTrialDivision),
      cmocka_unit_test(commonExtensionsMatchDirectComparison),
      cmocka_unit_test(divisorsOfLargePrimesAndSemiprimes),
      cmocka_unit_test(outputWriteReplacesWholeFile),
      cmocka_unit_test(outputWriteFailureLeavesNothing),
      cmocka_unit_test(outputWriteKeepsSymlink),
      cmocka_unit_test(outputWriteKeepsFifo),
      cmocka_unit_test(readMissingFileExplains),
      cmocka_unit_test(binaryProgramSolversAgree),
      cmocka_unit_test(binaryProgramInfeasibleForBothSolvers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
