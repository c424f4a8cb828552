"""spawn / start_processes: start nprocs processes running fn(i, *args) and wait for them,
raising in the parent when one fails (PyTorch's torch.multiprocessing.spawn, same classes,
same messages).  A child that raises writes its traceback to a file the parent reads back
(ProcessRaisedException); one that exits with a non-zero code or dies of a signal gives
ProcessExitedException; the others are then terminated (SIGTERM, then SIGKILL).

Departure: TORCH_MP_PARALLEL_START (PyTorch's opt-in parallel start under forkserver) is not
read: processes always start one after another."""
import ctypes
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import time

from .._warnings import warn_user as _warn_user

__all__ = ["ProcessContext", "ProcessException", "ProcessExitedException", "ProcessRaisedException",
           "spawn", "SpawnContext", "start_processes"]


class ProcessException(Exception):
    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.error_pid = error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """Exception raised when a process failed due to an exception raised by the code."""


class ProcessExitedException(ProcessException):
    """Exception raised when a process failed due to signal or exited with a specific code."""

    __slots__ = ["exit_code"]

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)


def _set_pdeathsig(sig):
    """Linux: have the kernel send sig to this process when its parent dies (a non-daemonic
    child of a parent that was killed ends too: PyTorch's _prctl_pr_set_pdeathsig)."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None).prctl(1, int(sig), 0, 0, 0)       # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass


def _wrap(fn, i, args, error_file):
    _set_pdeathsig(signal.SIGINT)
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass        # SIGINT: the parent is gone or stopping us
    except Exception:
        # the traceback goes back through a file (a queue could deadlock a dying process)
        import traceback
        with open(error_file, "wb") as fh:
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


class ProcessContext:
    def __init__(self, processes, error_files):
        self.error_files = error_files
        self.processes = processes
        self.sentinels = {process.sentinel: index for index, process in enumerate(processes)}

    def pids(self):
        return [int(process.pid) for process in self.processes]

    def _join_procs_with_timeout(self, timeout):
        end = time.monotonic() + timeout
        for process in self.processes:
            process.join(max(0, end - time.monotonic()))

    def join(self, timeout=None, grace_period=None):
        """Wait (at most timeout seconds) for the processes to end.  True once all have ended
        with exit code 0, False while some still run; when one has failed, the others are
        terminated (after grace_period seconds, if given) and the failure is raised:
        ProcessRaisedException with the child's traceback, ProcessExitedException with its
        exit code or signal."""
        if len(self.sentinels) == 0:
            return True
        ready = multiprocessing.connection.wait(self.sentinels.keys(), timeout=timeout)
        error_index = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0:
                error_index = index
                break
        if error_index is None:
            return len(self.sentinels) == 0
        # one failed: give the others grace_period, then SIGTERM, then SIGKILL
        if grace_period is not None:
            self._join_procs_with_timeout(grace_period)
        for process in self.processes:
            if process.is_alive():
                process.terminate()
        self._join_procs_with_timeout(30 if grace_period is None else grace_period)
        for process in self.processes:
            if process.is_alive():
                process.kill()
            process.join()

        failed_process = self.processes[error_index]
        error_file = self.error_files[error_index]
        if not os.access(error_file, os.R_OK):
            exitcode = failed_process.exitcode
            if exitcode < 0:
                try:
                    name = signal.Signals(-exitcode).name
                except ValueError:
                    name = f"<Unknown signal {-exitcode}>"
                raise ProcessExitedException(f"process {error_index:d} terminated with signal {name}",
                                             error_index=error_index, error_pid=failed_process.pid,
                                             exit_code=exitcode, signal_name=name)
            raise ProcessExitedException(f"process {error_index:d} terminated with exit code {exitcode:d}",
                                         error_index=error_index, error_pid=failed_process.pid, exit_code=exitcode)
        with open(error_file, "rb") as fh:
            original_trace = pickle.load(fh)
        os.unlink(error_file)       # (PyTorch leaves it in the temporary directory)
        msg = f"\n\n-- Process {error_index:d} terminated with the following error:\n"
        msg += original_trace
        raise ProcessRaisedException(msg, error_index, failed_process.pid)


class SpawnContext(ProcessContext):
    def __init__(self, processes, error_files):
        _warn_user("SpawnContext is renamed to ProcessContext since 1.4 release.", stacklevel=2)
        super().__init__(processes, error_files)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start nprocs processes (start_method: "spawn", "fork" or "forkserver") running
    fn(i, *args), i = 0 .. nprocs-1.  join=True: wait for them all (raising as
    ProcessContext.join does) and return None; join=False: return their ProcessContext."""
    mp = multiprocessing.get_context(start_method)
    error_files = []
    processes = []
    for i in range(nprocs):
        # a free name the child writes its traceback to (its existence marks an exception)
        tf = tempfile.NamedTemporaryFile(prefix="nbgrad-errorfile-", suffix=".pickle", delete=False)
        tf.close()
        os.unlink(tf.name)
        process = mp.Process(target=_wrap, args=(fn, i, args, tf.name), daemon=daemon)
        process.start()
        error_files.append(tf.name)
        processes.append(process)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Spawn nprocs processes that run fn(i, *args) (fn defined at the top level of a module,
    so that the children can import it), as PyTorch's torch.multiprocessing.spawn: join=True
    waits and returns None, join=False returns the ProcessContext.  A child's exception is
    raised here as ProcessRaisedException carrying its traceback; a non-zero exit as
    ProcessExitedException.  Always the spawn start method (another start_method warns:
    use start_processes)."""
    if start_method != "spawn":
        msg = (f"This method only supports start_method=spawn (got: {start_method}).\n"
               "To use a different start_method use:\n\t\t"
               " torch.multiprocessing.start_processes(...)")
        _warn_user(msg, FutureWarning, stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
