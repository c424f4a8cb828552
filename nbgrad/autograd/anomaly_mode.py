"""Anomaly detection: nodes remember where they were created; NaN in a backward raises.

The mode is global, as in PyTorch (grad mode is per thread, anomaly mode is not)."""
import traceback

ENABLED = False


def is_anomaly_enabled():
    return ENABLED


def _set(mode):
    global ENABLED
    ENABLED = bool(mode)


class set_detect_anomaly:
    def __init__(self, mode, check_nan=True):
        self.prev = ENABLED
        _set(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _set(self.prev)


class detect_anomaly:
    def __init__(self, check_nan=True):
        pass

    def __enter__(self):
        self.prev = ENABLED
        _set(True)
        return self

    def __exit__(self, *exc):
        _set(self.prev)


def creation_trace():
    return "".join(traceback.format_stack()[:-3])
