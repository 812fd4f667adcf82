// spm-to-memref on hand-written spm IR. A conv+ReLU group tiled by 2 of its
// 8 rows becomes an scf.for with step 2 whose tiles live in memory space 1:
// the weights are loaded once before the loop, each input tile is loaded into
// a padded scratchpad tile, intermediate and result tiles are scratchpad
// allocations. Its result is pinned at byte 1024 of a 4 KiB arena, so the
// loop writes straight into that view. The next group reads the pinned map
// tile by tile without copying it in, and stores its result tiles off-chip.
// RUN: memopt-opt %s --split-input-file --spm-to-memref="spm-bytes=4KiB" | FileCheck %s

// CHECK-LABEL: func.func @conv_relu_pinned(
// CHECK-SAME:      %[[IMAGE:[0-9a-z]+]]: tensor<1x8x8x4xf32>, %[[W:[0-9a-z]+]]: tensor<3x3x4x8xf32>)
// CHECK:         %[[ARENA:.*]] = memref.alloc() : memref<4096xi8, 1>
// CHECK:         %[[OFFSET:.*]] = arith.constant 1024 : index
// CHECK:         %[[VIEW:.*]] = memref.view %[[ARENA]][%[[OFFSET]]][] : memref<4096xi8, 1> to memref<1x8x8x8xf32, 1>
// CHECK:         %[[PINNED:.*]] = bufferization.to_tensor %[[VIEW]] restrict writable
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK:         %[[WSLICE:.*]] = tensor.extract_slice %[[W]][0, 0, 0, 0] [3, 3, 4, 8]
// CHECK:         %[[WBUF:.*]] = bufferization.alloc_tensor() {memory_space = 1 : i64} : tensor<3x3x4x8xf32>
// CHECK:         %[[WSPM:.*]] = linalg.copy ins(%[[WSLICE]] : {{.*}}) outs(%[[WBUF]] :
// CHECK:         %[[G:.*]] = scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %[[C2]] iter_args(%[[DEST:.*]] = %[[PINNED]])
// CHECK:           %[[IN:.*]] = scf.if
// CHECK:             bufferization.alloc_tensor() {memory_space = 1 : i64} : tensor<1x4x10x4xf32>
// CHECK:           } else {
// CHECK:             %[[ISLICE:.*]] = tensor.extract_slice %[[IMAGE]]
// CHECK:             %[[PADBUF:.*]] = bufferization.alloc_tensor(%{{.*}}) {memory_space = 1 : i64} : tensor<1x?x10x4xf32>
// CHECK:             %[[PADFILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[PADBUF]]
// CHECK:             tensor.insert_slice %[[ISLICE]] into %[[PADFILL]]
// CHECK:           }
// CHECK:           %[[ACC:.*]] = bufferization.alloc_tensor() {memory_space = 1 : i64} : tensor<1x2x8x8xf32>
// CHECK:           %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[ACC]]
// CHECK:           %[[CONV:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[IN]], %[[WSPM]] : {{.*}}) outs(%[[ZERO]] : tensor<1x2x8x8xf32>)
// CHECK:           %[[RBUF:.*]] = bufferization.alloc_tensor() {memory_space = 1 : i64} : tensor<1x2x8x8xf32>
// CHECK:           %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[CONV]] : {{.*}}) outs(%[[RBUF]] :
// CHECK:           %[[STORED:.*]] = tensor.insert_slice %[[RELU]] into %[[DEST]][0, %[[ROW]], 0, 0] [1, 2, 8, 8]
// CHECK:           scf.yield %[[STORED]]
// CHECK:         }
// CHECK-NOT:     materialize_in_destination
// CHECK:         %[[OFFCHIP:.*]] = tensor.empty() : tensor<1x8x8x8xf32>
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK:         %[[H:.*]] = scf.for %[[ROW2:.*]] = %{{.*}} to %{{.*}} step %[[C4]] iter_args(%[[DEST2:.*]] = %[[OFFCHIP]])
// CHECK:           %[[PSLICE:.*]] = tensor.extract_slice %[[G]][0, %[[ROW2]], 0, 0] [1, 4, 8, 8]
// CHECK-NOT:       linalg.copy
// CHECK:           %[[TBUF:.*]] = bufferization.alloc_tensor() {memory_space = 1 : i64} : tensor<1x4x8x8xf32>
// CHECK:           %[[TWICE:.*]] = linalg.generic {{.*}} ins(%[[PSLICE]] : {{.*}}) outs(%[[TBUF]] :
// CHECK:           tensor.insert_slice %[[TWICE]] into %[[DEST2]][0, %[[ROW2]], 0, 0] [1, 4, 8, 8]
// CHECK:         return %[[H]]

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_relu_pinned(%image: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x8xf32>) -> tensor<1x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %g = "spm.group"() ({
    %padded = tensor.pad %image low[0, 1, 1, 0] high[0, 1, 1, 0] {
    ^bb0(%a: index, %b: index, %c: index, %d: index):
      tensor.yield %zero : f32
    } : tensor<1x8x8x4xf32> to tensor<1x10x10x4xf32>
    %e = tensor.empty() : tensor<1x8x8x8xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
    %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%padded, %w : tensor<1x10x10x4xf32>, tensor<3x3x4x8xf32>) outs(%f : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
    %e2 = tensor.empty() : tensor<1x8x8x8xf32>
    %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv : tensor<1x8x8x8xf32>) outs(%e2 : tensor<1x8x8x8xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = arith.maximumf %x, %zero : f32
      linalg.yield %y : f32
    } -> tensor<1x8x8x8xf32>
    vector.yield %relu : tensor<1x8x8x8xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, tile = array<i64: 1, 2, 8, 8>} : () -> tensor<1x8x8x8xf32>
  %p = "spm.pin"(%g) {offset = 1024 : i64, size = 2048 : i64} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %h = "spm.group"() ({
    %e3 = tensor.empty() : tensor<1x8x8x8xf32>
    %twice = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p : tensor<1x8x8x8xf32>) outs(%e3 : tensor<1x8x8x8xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = arith.addf %x, %x : f32
      linalg.yield %y : f32
    } -> tensor<1x8x8x8xf32>
    vector.yield %twice : tensor<1x8x8x8xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, tile = array<i64: 1, 4, 8, 8>} : () -> tensor<1x8x8x8xf32>
  return %h : tensor<1x8x8x8xf32>
}

// -----

// spm.load copies into a scratchpad allocation, spm.store into a new
// off-chip tensor.

// CHECK-LABEL: func.func @load_store(
// CHECK-SAME:      %[[X:[0-9a-z]+]]: tensor<4x8xf32>)
// CHECK:         %[[SPM:.*]] = bufferization.alloc_tensor() {memory_space = 1 : i64} : tensor<4x8xf32>
// CHECK:         %[[LOADED:.*]] = linalg.copy ins(%[[X]] : tensor<4x8xf32>) outs(%[[SPM]] : tensor<4x8xf32>)
// CHECK:         %[[OFF:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK:         %[[STORED:.*]] = linalg.copy ins(%[[LOADED]] : tensor<4x8xf32>) outs(%[[OFF]] : tensor<4x8xf32>)
// CHECK:         return %[[STORED]]
func.func @load_store(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %in = "spm.load"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %out = "spm.store"(%in) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %out : tensor<4x8xf32>
}
