/* Growable NUL-terminated strings, grown by memoptGrowArray (which aborts
 * when memory runs out). */
#include "Support/Support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

MemoptStringBuffer memoptStringBufferCreate(void) {
  MemoptStringBuffer buffer = {NULL, 0, 0};
  return buffer;
}

void memoptStringBufferDestroy(MemoptStringBuffer *buffer) {
  free(buffer->data);
  *buffer = memoptStringBufferCreate();
}

static void reserve(MemoptStringBuffer *buffer, size_t extra) {
  buffer->data = memoptGrowArray(buffer->data, &buffer->capacity, buffer->length + extra + 1, 1);
}

void memoptStringBufferAppend(MemoptStringBuffer *buffer, const char *bytes, size_t length) {
  reserve(buffer, length);
  if (length)
    memcpy(buffer->data + buffer->length, bytes, length);
  buffer->length += length;
  buffer->data[buffer->length] = '\0';
}

void memoptStringBufferAppendCString(MemoptStringBuffer *buffer, const char *string) {
  memoptStringBufferAppend(buffer, string, strlen(string));
}

void memoptStringBufferAppendFormatV(MemoptStringBuffer *buffer, const char *format, va_list args) {
  va_list copy;
  va_copy(copy, args);
  int needed = vsnprintf(NULL, 0, format, copy);
  va_end(copy);
  if (needed <= 0)
    return;
  reserve(buffer, (size_t)needed);
  vsnprintf(buffer->data + buffer->length, (size_t)needed + 1, format, args);
  buffer->length += (size_t)needed;
}

void memoptStringBufferAppendFormat(MemoptStringBuffer *buffer, const char *format, ...) {
  va_list args;
  va_start(args, format);
  memoptStringBufferAppendFormatV(buffer, format, args);
  va_end(args);
}

void memoptStringBufferClear(MemoptStringBuffer *buffer) {
  buffer->length = 0;
  if (buffer->data)
    buffer->data[0] = '\0';
}

const char *memoptStringBufferGet(const MemoptStringBuffer *buffer) {
  return buffer->data ? buffer->data : "";
}

char *memoptStringBufferRelease(MemoptStringBuffer *buffer) {
  if (!buffer->data)
    memoptStringBufferAppend(buffer, "", 0);
  char *data = buffer->data;
  *buffer = memoptStringBufferCreate();
  return data;
}
