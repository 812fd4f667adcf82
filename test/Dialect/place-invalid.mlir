// Invariants of place ops that IRDL cannot state.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{attribute 'devices' must be at least 1, got 0}}
"place.cluster"() {sym_name = "pod", devices = 0 : i64, hbm_bytes = 1 : i64, link_bandwidth = 1 : i64} : () -> ()

// -----

func.func @degrees_mismatch() {
  // expected-error @+1 {{uses 8 devices but data_parallel x tensor_parallel is 6}}
  "place.stage"() ({
    vector.yield
  }) {cluster = @pod, index = 0 : i64, devices = 8 : i64, data_parallel = 2 : i64, tensor_parallel = 3 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0>} : () -> ()
  return
}

// -----

func.func @repeated_index() {
  "place.stage"() ({
    vector.yield
  }) {cluster = @pod, index = 0 : i64, devices = 1 : i64, data_parallel = 1 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0>} : () -> ()
  // expected-error @+1 {{repeats stage index 0}}
  "place.stage"() ({
    vector.yield
  }) {cluster = @pod, index = 0 : i64, devices = 1 : i64, data_parallel = 1 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0>} : () -> ()
  return
}

// -----

func.func @missing_body_terminator() {
  // expected-error @+1 {{region must end in 'vector.yield'}}
  "place.stage"() ({
    "tosa.yield"() : () -> ()
  }) {cluster = @pod, index = 0 : i64, devices = 1 : i64, data_parallel = 1 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0>} : () -> ()
  return
}

// -----

func.func @empty_layer_range() {
  // expected-error @+1 {{attribute 'layers' must be at least 1, got 0}}
  "place.stage"() ({
    vector.yield
  }) {cluster = @pod, index = 0 : i64, devices = 1 : i64, data_parallel = 1 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 0 : i64, layers = 0 : i64, resultSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0>} : () -> ()
  return
}
