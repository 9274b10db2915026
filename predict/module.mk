# predict/: rules added by its owner.
