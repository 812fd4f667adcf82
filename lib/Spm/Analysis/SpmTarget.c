/* The accelerator a Pin-or-Fuse plan is made for: documented presets and the
 * module attribute `spm.target` that overrides them. */
#include "Spm/Spm.h"
#include "Analysis/Analysis.h"

#include "mlir-c/BuiltinAttributes.h"

#include <string.h>

/* Three edge accelerators of growing size; bandwidth and compute grow with
 * the scratchpad, as they do across NPU product lines. */
static const struct {
  const char *name;
  MemoptSpmTarget target;
} presets[] = {
    {"spm-512k", {512u << 10, 16, 256, 0, 64}},
    {"spm-2m", {2u << 20, 32, 1024, 0, 64}},
    {"spm-8m", {8u << 20, 64, 4096, 0, 64}},
};

size_t memoptSpmTargetPresetCount(void) { return sizeof presets / sizeof *presets; }

const char *memoptSpmTargetPresetName(size_t index) { return presets[index].name; }

bool memoptSpmTargetPreset(const char *name, MemoptSpmTarget *target) {
  for (size_t i = 0; i < memoptSpmTargetPresetCount(); ++i)
    if (strcmp(presets[i].name, name) == 0) {
      *target = presets[i].target;
      return true;
    }
  return false;
}

static bool presetFromAttribute(MlirAttribute name, MemoptSpmTarget *target,
                                MemoptStringBuffer *error) {
  if (!mlirAttributeIsAString(name)) {
    memoptStringBufferAppendCString(error, "spm.target preset must be a string");
    return false;
  }
  MlirStringRef text = mlirStringAttrGetValue(name);
  // An empty string attribute may hold no storage at all: data is then null.
  const char *data = text.length ? text.data : "";
  char buffer[64];
  size_t length = text.length < sizeof buffer - 1 ? text.length : sizeof buffer - 1;
  memcpy(buffer, data, length);
  buffer[length] = '\0';
  if (length == text.length && memoptSpmTargetPreset(buffer, target))
    return true;
  memoptStringBufferAppendFormat(error, "unknown spm.target preset '%.*s' (", (int)text.length,
                                 data);
  for (size_t i = 0; i < memoptSpmTargetPresetCount(); ++i)
    memoptStringBufferAppendFormat(error, "%s%s", i ? ", " : "", memoptSpmTargetPresetName(i));
  memoptStringBufferAppendCString(error, ")");
  return false;
}

bool memoptSpmTargetFromModule(MlirOperation module, MemoptSpmTarget *target,
                               MemoptStringBuffer *error) {
  MlirAttribute attribute = mlirOperationGetDiscardableAttributeByName(
      module, mlirStringRefCreateFromCString("spm.target"));
  if (mlirAttributeIsNull(attribute))
    return true;
  if (mlirAttributeIsAString(attribute))
    return presetFromAttribute(attribute, target, error);
  if (!mlirAttributeIsADictionary(attribute)) {
    memoptStringBufferAppendCString(error,
                                    "spm.target must be a preset name or a dictionary");
    return false;
  }
  MlirAttribute preset =
      mlirDictionaryAttrGetElementByName(attribute, mlirStringRefCreateFromCString("preset"));
  if (!mlirAttributeIsNull(preset) && !presetFromAttribute(preset, target, error))
    return false;
  static const char *const fields[] = {"spm_bytes", "dram_bytes_per_cycle", "macs_per_cycle",
                                       "element_bytes", "dma_setup_cycles"};
  uint64_t *slots[] = {&target->spmBytes, &target->dramBytesPerCycle, &target->macsPerCycle,
                       &target->elementBytes, &target->dmaSetupCycles};
  for (intptr_t i = 0; i < mlirDictionaryAttrGetNumElements(attribute); ++i) {
    MlirNamedAttribute entry = mlirDictionaryAttrGetElement(attribute, i);
    MlirStringRef key = mlirIdentifierStr(entry.name);
    if (key.length == 6 && memcmp(key.data, "preset", 6) == 0)
      continue;
    size_t field = 0;
    while (field < sizeof fields / sizeof *fields &&
           !(strlen(fields[field]) == key.length && memcmp(fields[field], key.data, key.length) == 0))
      ++field;
    if (field == sizeof fields / sizeof *fields) {
      memoptStringBufferAppendFormat(error, "unknown spm.target field '%.*s'", (int)key.length,
                                     key.data);
      return false;
    }
    int64_t value = mlirAttributeIsAInteger(entry.attribute)
                        ? mlirIntegerAttrGetValueSInt(entry.attribute)
                        : -1;
    /* Only the element size may be 0 (the IR's own). */
    if (value < (slots[field] == &target->elementBytes ? 0 : 1)) {
      memoptStringBufferAppendFormat(error, "spm.target field '%s' must be a positive integer",
                                     fields[field]);
      return false;
    }
    *slots[field] = (uint64_t)value;
  }
  return true;
}
