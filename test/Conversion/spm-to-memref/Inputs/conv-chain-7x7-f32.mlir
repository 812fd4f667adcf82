// Three 3x3 convolutions with ReLU on a 7x7 image, in f32.
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @chain(%image: tensor<1x7x7x4xf32>, %w0: tensor<3x3x4x8xf32>, %w1: tensor<3x3x8x8xf32>, %w2: tensor<3x3x8x4xf32>) -> tensor<1x7x7x4xf32> {
  %zero = arith.constant 0.0 : f32
  %p0 = tensor.pad %image low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x7x7x4xf32> to tensor<1x9x9x4xf32>
  %e0 = tensor.empty() : tensor<1x7x7x8xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
  %c0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p0, %w0 : tensor<1x9x9x4xf32>, tensor<3x3x4x8xf32>) outs(%f0 : tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
  %r0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%c0 : tensor<1x7x7x8xf32>) outs(%e0 : tensor<1x7x7x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x7x7x8xf32>
  %p1 = tensor.pad %r0 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x7x7x8xf32> to tensor<1x9x9x8xf32>
  %e1 = tensor.empty() : tensor<1x7x7x8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
  %c1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p1, %w1 : tensor<1x9x9x8xf32>, tensor<3x3x8x8xf32>) outs(%f1 : tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%c1 : tensor<1x7x7x8xf32>) outs(%e1 : tensor<1x7x7x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x7x7x8xf32>
  %p2 = tensor.pad %r1 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x7x7x8xf32> to tensor<1x9x9x8xf32>
  %e2 = tensor.empty() : tensor<1x7x7x4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x7x7x4xf32>) -> tensor<1x7x7x4xf32>
  %c2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p2, %w2 : tensor<1x9x9x8xf32>, tensor<3x3x8x4xf32>) outs(%f2 : tensor<1x7x7x4xf32>) -> tensor<1x7x7x4xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%c2 : tensor<1x7x7x4xf32>) outs(%e2 : tensor<1x7x7x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x7x7x4xf32>
  return %r2 : tensor<1x7x7x4xf32>
}
