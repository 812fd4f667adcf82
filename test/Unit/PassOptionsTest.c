/* Unit tests of typed pass options (lib/Pass/PassOptions.c), on a pass
 * description written here so every option kind is covered. */
#include "Pass/Pass.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <float.h>
#include <stdlib.h>
#include <string.h>

static const MemoptPassOptionInfo options[] = {
    {"budget", MemoptOptionBytes, "0", "memory budget", NULL, 0, 1e18},
    {"stages", MemoptOptionInteger, "4", "stages", NULL, 1, 64},
    {"ratio", MemoptOptionFloat, "0.5", "ratio", NULL, 0, 1},
    {"verbose", MemoptOptionBool, "false", "verbose", NULL, 0, 0},
    {"report", MemoptOptionString, "", "report path", NULL, 0, 0},
    {"strategy", MemoptOptionChoice, "dp", "strategy", "dp|fuse-only|ilp", 0, 0},
};

static const MemoptPassInfo pass = {
    .argument = "example",
    .summary = "a pass description for tests",
    .anchor = "func.func",
    .options = options,
    .optionCount = sizeof options / sizeof *options,
};

static MemoptPassOptions *parse(const char *text) {
  MemoptStringBuffer error = memoptStringBufferCreate();
  size_t offset = 0;
  MemoptPassOptions *values = memoptPassOptionsParse(&pass, text, &error, &offset);
  memoptStringBufferDestroy(&error);
  return values;
}

/* Parses text expected to fail; returns the message and its offset. */
static char *parseError(const char *text, size_t *offset) {
  MemoptStringBuffer error = memoptStringBufferCreate();
  MemoptPassOptions *values = memoptPassOptionsParse(&pass, text, &error, offset);
  assert_null(values);
  return memoptStringBufferRelease(&error);
}

static void defaultsApplyWhenUnset(void **state) {
  MemoptPassOptions *values = parse("");
  assert_non_null(values);
  assert_int_equal(memoptPassOptionsGetInteger(values, "budget"), 0);
  assert_int_equal(memoptPassOptionsGetInteger(values, "stages"), 4);
  assert_true(memoptPassOptionsGetFloat(values, "ratio") == 0.5);
  assert_false(memoptPassOptionsGetBool(values, "verbose"));
  assert_string_equal(memoptPassOptionsGetString(values, "strategy"), "dp");
  assert_false(memoptPassOptionsIsSet(values, "budget"));
  memoptPassOptionsDestroy(values);
}

static void valuesOfEveryKindParse(void **state) {
  MemoptPassOptions *values =
      parse("budget=2MiB stages=8 ratio=0.25 verbose strategy=ilp report='a b.json'");
  assert_non_null(values);
  assert_int_equal(memoptPassOptionsGetInteger(values, "budget"), 2 * 1024 * 1024);
  assert_int_equal(memoptPassOptionsGetInteger(values, "stages"), 8);
  assert_true(memoptPassOptionsGetFloat(values, "ratio") == 0.25);
  assert_true(memoptPassOptionsGetBool(values, "verbose"));
  assert_string_equal(memoptPassOptionsGetString(values, "strategy"), "ilp");
  assert_string_equal(memoptPassOptionsGetString(values, "report"), "a b.json");
  assert_true(memoptPassOptionsIsSet(values, "budget"));
  memoptPassOptionsDestroy(values);
}

static void byteSuffixesScale(void **state) {
  const struct {
    const char *text;
    long long bytes;
  } cases[] = {{"budget=512KiB", 524288}, {"budget=1.5GiB", 1610612736},
               {"budget=3MB", 3000000}, {"budget=4096", 4096}, {"budget=10B", 10}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
    MemoptPassOptions *values = parse(cases[i].text);
    assert_non_null(values);
    assert_int_equal(memoptPassOptionsGetInteger(values, "budget"), cases[i].bytes);
    memoptPassOptionsDestroy(values);
  }
}

static void badValuesAreRejectedWithReasons(void **state) {
  size_t offset = 0;
  const struct {
    const char *text;
    const char *message;
    size_t offset;
  } cases[] = {
      {"stages=x", "expects an integer, got 'x'", 0},
      {"stages=0", "must be in [1, 64], got '0'", 0},
      {"ratio=2", "must be in [0, 1]", 0},
      {"budget=12XiB", "expects a byte count", 0},
      {"budget=0.5B", "expects a byte count", 0},
      {"verbose=maybe", "expects true or false", 0},
      {"strategy=greedy", "must be one of dp|fuse-only|ilp, got 'greedy'", 0},
      {"stages=2 stagse=3", "unknown option 'stagse' for pass 'example'; did you mean 'stages'?", 9},
      {"stages", "option 'stages' needs a value", 0},
      {"report='open", "unterminated quoted option value", 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
    char *message = parseError(cases[i].text, &offset);
    if (!strstr(message, cases[i].message))
      fail_msg("'%s' gave '%s', expected '%s'", cases[i].text, message, cases[i].message);
    assert_int_equal(offset, cases[i].offset);
    free(message);
  }
}

static void cloneAndPrintRoundTrip(void **state) {
  MemoptPassOptions *values = parse("budget=1KiB report={x y}");
  MemoptPassOptions *copy = memoptPassOptionsClone(values);
  memoptPassOptionsDestroy(values);
  MemoptStringBuffer text = memoptStringBufferCreate();
  memoptPassOptionsPrint(copy, &text);
  assert_string_equal(text.data,
                      "budget=1024 stages=4 ratio=0.5 verbose=false report='x y' strategy=dp");
  MemoptPassOptions *again = parse(text.data);
  assert_non_null(again);
  assert_string_equal(memoptPassOptionsGetString(again, "report"), "x y");
  memoptPassOptionsDestroy(again);
  memoptPassOptionsDestroy(copy);
  memoptStringBufferDestroy(&text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(defaultsApplyWhenUnset),
      cmocka_unit_test(valuesOfEveryKindParse),
      cmocka_unit_test(byteSuffixesScale),
      cmocka_unit_test(badValuesAreRejectedWithReasons),
      cmocka_unit_test(cloneAndPrintRoundTrip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
