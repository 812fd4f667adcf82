irdl.dialect @toy {
  irdl.operation @twice {
    %i32 = irdl.is i32
    irdl.operands(value: %i32)
    irdl.results(result: %i32)
  }
}
