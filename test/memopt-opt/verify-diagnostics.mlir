// Every designator of --verify-diagnostics; the run passes when each
// expectation is met exactly once.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics

// expected-note @+1 {{prior use here}}
func.func @same_line(%x: i32) {
  %y = arith.addi %x, %x : i64 // expected-error {{use of value '%x' expects different type than prior uses}}
  return
}

// -----

// expected-error @+2 {{'func.return' op has 1 operands, but enclosing function (@plus) returns 0}}
func.func @plus(%x: i32) {
  return %x : i32
}

// -----

func.func @minus(%x: i32) {
  return %x : i32
}
// expected-error @-2 {{enclosing function (@minus) returns 0}}

// -----

func.func @above(%x: i32) {
  return %x : i32
  // expected-error @above {{returns 0}}
}

// -----

func.func @below(%x: i32) {
  // expected-error @below {{returns 0}}
  return %x : i32
}

// -----

func.func @regex(%x: i32) {
  // expected-error-re @+1 {{'func.return' op has {{[0-9]+}} operands}}
  return %x : i32
}

// -----

// expected-error @+1 {{op expects at least 1 operands, but got 0}}
"remat.evict"() : () -> ()
