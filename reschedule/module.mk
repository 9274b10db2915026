# reschedule/: rules added by its owner.
