"""asv benchmark suites for nbgrad, each timed beside its NumPy twin (see asv.conf.json)."""
