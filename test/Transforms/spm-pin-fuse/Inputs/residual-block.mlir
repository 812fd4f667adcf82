// A residual block: 3x3 conv, batch norm, ReLU, stride-2 depthwise (layer 3),
// pointwise, and the add of the pointwise and depthwise outputs (layer 5).
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @block(%image: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x8xf32>, %var: tensor<8xf32>,
                 %dw: tensor<3x3x8xf32>, %pw: tensor<1x1x8x8xf32>) -> tensor<1x4x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %image low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x4xf32> to tensor<1x10x10x4xf32>
  %e0 = tensor.empty() : tensor<1x8x8x8xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%padded, %w : tensor<1x10x10x4xf32>, tensor<3x3x4x8xf32>) outs(%f0 : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %e1 = tensor.empty() : tensor<1x8x8x8xf32>
  %bn = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%conv, %var : tensor<1x8x8x8xf32>, tensor<8xf32>) outs(%e1 : tensor<1x8x8x8xf32>) {
  ^bb0(%x: f32, %v: f32, %o: f32):
    %s = math.sqrt %v : f32
    %y = arith.divf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<1x8x8x8xf32>
  %e2 = tensor.empty() : tensor<1x8x8x8xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%bn : tensor<1x8x8x8xf32>) outs(%e2 : tensor<1x8x8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x8x8x8xf32>
  %padded2 = tensor.pad %relu low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x8xf32> to tensor<1x10x10x8xf32>
  %e3 = tensor.empty() : tensor<1x4x4x8xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %depthwise = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%padded2, %dw : tensor<1x10x10x8xf32>, tensor<3x3x8xf32>) outs(%f3 : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %e4 = tensor.empty() : tensor<1x4x4x8xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %pointwise = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%depthwise, %pw : tensor<1x4x4x8xf32>, tensor<1x1x8x8xf32>) outs(%f4 : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %e5 = tensor.empty() : tensor<1x4x4x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%pointwise, %depthwise : tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) outs(%e5 : tensor<1x4x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.addf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<1x4x4x8xf32>
  return %sum : tensor<1x4x4x8xf32>
}
