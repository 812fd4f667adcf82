func.func @valid() {
  return
}
