module @m {
  func.func @g() {
    return
  }
}
