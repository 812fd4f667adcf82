func.func @a() {
  return
}
{-#
  external_resources: {
    mlir_reproducer: {
      pipeline: "builtin.module(cse)",
      bogus: true
    }
  }
#-}
