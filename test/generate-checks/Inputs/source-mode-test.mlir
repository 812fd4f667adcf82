// A test that is about to get its checks.
// RUN: memopt-opt %s --split-input-file | FileCheck %s

// OTHER: hand-written lines of another prefix stay.
func.func @double(%a: f32) -> f32 {
  %b = arith.addf %a, %a : f32
  return %b : f32
}

// -----

func.func @identity(%a: f32) -> f32 {
  return %a : f32
}
