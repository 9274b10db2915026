# vgtool/: rules added by its owner.
