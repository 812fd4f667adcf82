func.func @g() -> tensor<2xi8> {
  %0 = arith.constant dense_resource<blob1> : tensor<2xi8>
  return %0 : tensor<2xi8>
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x010000000102"
    }
  }
#-}
