# trace/: rules added by its owner.
