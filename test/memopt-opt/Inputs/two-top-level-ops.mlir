func.func private @a()
func.func private @b()
