# tests/: TAP tests run by prove.  Each area puts its tests in tests/t/ as
# executable .t scripts and adds what they need built to CHECK_DEPS in its
# own module.mk.  This file is included last, so CHECK_DEPS is complete here.

.PHONY: check
check: all $(CHECK_DEPS)
	prove -j2 tests/t/
