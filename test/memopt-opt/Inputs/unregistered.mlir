"foo.bar"() : () -> ()
