// Three 3x3 convolutions with ReLU on a 10x10 image, in i8.
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @chain(%image: tensor<1x10x10x4xi8>, %w0: tensor<3x3x4x8xi8>, %w1: tensor<3x3x8x8xi8>, %w2: tensor<3x3x8x4xi8>) -> tensor<1x10x10x4xi8> {
  %zero = arith.constant 0 : i8
  %p0 = tensor.pad %image low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : i8
  } : tensor<1x10x10x4xi8> to tensor<1x12x12x4xi8>
  %e0 = tensor.empty() : tensor<1x10x10x8xi8>
  %f0 = linalg.fill ins(%zero : i8) outs(%e0 : tensor<1x10x10x8xi8>) -> tensor<1x10x10x8xi8>
  %c0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p0, %w0 : tensor<1x12x12x4xi8>, tensor<3x3x4x8xi8>) outs(%f0 : tensor<1x10x10x8xi8>) -> tensor<1x10x10x8xi8>
  %r0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%c0 : tensor<1x10x10x8xi8>) outs(%e0 : tensor<1x10x10x8xi8>) {
  ^bb0(%x: i8, %o: i8):
    %y = arith.maxsi %x, %zero : i8
    linalg.yield %y : i8
  } -> tensor<1x10x10x8xi8>
  %p1 = tensor.pad %r0 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : i8
  } : tensor<1x10x10x8xi8> to tensor<1x12x12x8xi8>
  %e1 = tensor.empty() : tensor<1x10x10x8xi8>
  %f1 = linalg.fill ins(%zero : i8) outs(%e1 : tensor<1x10x10x8xi8>) -> tensor<1x10x10x8xi8>
  %c1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p1, %w1 : tensor<1x12x12x8xi8>, tensor<3x3x8x8xi8>) outs(%f1 : tensor<1x10x10x8xi8>) -> tensor<1x10x10x8xi8>
  %r1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%c1 : tensor<1x10x10x8xi8>) outs(%e1 : tensor<1x10x10x8xi8>) {
  ^bb0(%x: i8, %o: i8):
    %y = arith.maxsi %x, %zero : i8
    linalg.yield %y : i8
  } -> tensor<1x10x10x8xi8>
  %p2 = tensor.pad %r1 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : i8
  } : tensor<1x10x10x8xi8> to tensor<1x12x12x8xi8>
  %e2 = tensor.empty() : tensor<1x10x10x4xi8>
  %f2 = linalg.fill ins(%zero : i8) outs(%e2 : tensor<1x10x10x4xi8>) -> tensor<1x10x10x4xi8>
  %c2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p2, %w2 : tensor<1x12x12x8xi8>, tensor<3x3x8x4xi8>) outs(%f2 : tensor<1x10x10x4xi8>) -> tensor<1x10x10x4xi8>
  %r2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%c2 : tensor<1x10x10x4xi8>) outs(%e2 : tensor<1x10x10x4xi8>) {
  ^bb0(%x: i8, %o: i8):
    %y = arith.maxsi %x, %zero : i8
    linalg.yield %y : i8
  } -> tensor<1x10x10x4xi8>
  return %r2 : tensor<1x10x10x4xi8>
}
