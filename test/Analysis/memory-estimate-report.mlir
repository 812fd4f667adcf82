// report=PATH writes the profile of every function as JSON: per position
// the live and allocated bytes, the peak with the buffers live there, every
// buffer, and the notes. Functions are listed by name.
// RUN: rm -f %t.json
// RUN: memopt-opt %s --allow-unregistered-dialect --memory-estimate="report=%t.json" -o /dev/null 2>/dev/null
// RUN: jq -c '.functions[] | select(.error == null) | {name, peak_allocated_bytes, peak: .peak | {position, op, line, live_bytes, unknown_size, live_buffers}}' %t.json | FileCheck %s --check-prefix=PEAK
// RUN: jq -r '.functions[].name' %t.json | FileCheck %s --check-prefix=NAMES
// RUN: jq -c '.functions[] | select(.name == "small") | .positions[]' %t.json | FileCheck %s --check-prefix=POSITIONS
// RUN: jq -c '.functions[] | select(.name == "small") | .buffers[]' %t.json | FileCheck %s --check-prefix=BUFFERS
// RUN: jq -c '.functions[] | select(.name == "unknown_op") | .notes[]' %t.json | FileCheck %s --check-prefix=NOTES
// RUN: jq -c '.functions[] | select(.name == "branchy") | {name, error}' %t.json | FileCheck %s --check-prefix=ERROR
//
// The file is written atomically (a temporary renamed over it). A report in a
// folder that does not exist is refused before the input is read; a path that
// cannot be written when the pass ends (a folder stands there) is an error of
// the pass.
// RUN: not memopt-opt %s --allow-unregistered-dialect --memory-estimate="report=%t.missing/report.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NO-FOLDER
// NO-FOLDER: memopt-opt: error: in '--memory-estimate=report={{.*}}.missing/report.json': option 'report': cannot write '{{.*}}.missing/report.json': its folder does not exist
// RUN: rm -rf %t.folder && mkdir -p %t.folder
// RUN: not memopt-opt %s --allow-unregistered-dialect --memory-estimate="report=%t.folder" -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNWRITABLE
// UNWRITABLE: error: cannot write the memory report: cannot write '{{.*}}.folder': Is a directory

// Sorted by name. In @unknown_op the peak is at the scf.if: %y (returned)
// plus the nested op's result, live inside the if.
// NAMES:      branchy
// NAMES-NEXT: small
// NAMES-NEXT: unknown_op
// PEAK:      {"name":"small","peak_allocated_bytes":128,"peak":{"position":2,"op":"tensor.empty","line":[[# @LINE + 16]],"live_bytes":40,"unknown_size":false,"live_buffers":[0,1]}}
// PEAK-NEXT: {"name":"unknown_op","peak_allocated_bytes":128,"peak":{"position":1,"op":"scf.if","line":[[# @LINE + 28]],"live_bytes":32,"unknown_size":false,"live_buffers":[0,1]}}

// 5 x f32 = 20 bytes live, but aligned_alloc is asked for whole 64-byte
// units: 64 allocated per buffer. Each exp writes into its tensor.empty's
// buffer: result_buffers names the buffer holding each result.
// POSITIONS:      {"op":"tensor.empty","line":[[# @LINE + 8]],"live_bytes":20,"allocated_bytes":64,"callee_bytes":0,"unknown_size":false,"result_buffers":[0]}
// POSITIONS-NEXT: {"op":"linalg.exp","line":[[# @LINE + 8]],"live_bytes":20,"allocated_bytes":64,"callee_bytes":0,"unknown_size":false,"result_buffers":[0]}
// POSITIONS-NEXT: {"op":"tensor.empty","line":[[# @LINE + 8]],"live_bytes":40,"allocated_bytes":128,"callee_bytes":0,"unknown_size":false,"result_buffers":[1]}
// POSITIONS-NEXT: {"op":"linalg.exp","line":[[# @LINE + 8]],"live_bytes":40,"allocated_bytes":128,"callee_bytes":0,"unknown_size":false,"result_buffers":[1]}
// POSITIONS-NEXT: {"op":"func.return","line":[[# @LINE + 8]],"live_bytes":20,"allocated_bytes":64,"callee_bytes":0,"unknown_size":false,"result_buffers":[]}
// BUFFERS:      {"kind":"allocation","op":"tensor.empty","line":[[# @LINE + 3]],"value":"%0","bytes":20,"alignment":64,"first_position":0,"last_position":3,"nested":false,"escapes":false}
// BUFFERS-NEXT: {"kind":"allocation","op":"tensor.empty","line":[[# @LINE + 4]],"value":"%2","bytes":20,"alignment":64,"first_position":2,"last_position":4,"nested":false,"escapes":true}
func.func @small(%x: tensor<5xf32>) -> tensor<5xf32> {
  %e = tensor.empty() : tensor<5xf32>
  %a = linalg.exp ins(%x : tensor<5xf32>) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  %e2 = tensor.empty() : tensor<5xf32>
  %b = linalg.exp ins(%a : tensor<5xf32>) outs(%e2 : tensor<5xf32>) -> tensor<5xf32>
  return %b : tensor<5xf32>
}

// An op without a bufferization model: its result counts as a new buffer,
// and a note says the profile is an approximation there. A note on a nested
// op gives the position of its top-level ancestor (the scf.if, position 1).
// NOTES:      {"op":"test.opaque","line":[[# @LINE + 4]],"position":0,"message":"'test.opaque' has no bufferization model: its results count as new buffers"}
// NOTES-NEXT: {"op":"test.opaque","line":[[# @LINE + 5]],"position":1,"message":"'test.opaque' has no bufferization model: its results count as new buffers"}
// NOTES-NOT: test.opaque
func.func @unknown_op(%x: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  %y = "test.opaque"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  scf.if %c {
    %z = "test.opaque"() : () -> tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// Unstructured control flow is not modeled: the function reports why.
// ERROR: {"name":"branchy","error":"regions with several blocks (unstructured control flow) are not modeled"}
func.func @branchy(%x: tensor<4xf32>) -> tensor<4xf32> {
  cf.br ^next
^next:
  return %x : tensor<4xf32>
}
