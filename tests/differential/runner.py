"""Running programs in worker processes, so that a crash (of PyTorch or of nbgrad) is an
observation ("crash at statement k") instead of the end of the tester.

A worker reads jobs, one JSON line each, from stdin and answers one JSON line each.
Before each statement it prints a progress line, so that when it dies the parent
knows which statement killed it (and, for generated programs, the program so far).
"""
import json
import os
import queue
import subprocess
import sys
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _worker_main():
    sys.setrecursionlimit(10000)
    from .generator import generate
    from .program import Interpreter, Lib
    libs = {}
    out = sys.stdout
    for line in sys.stdin:
        job = json.loads(line)
        jid = job["id"]
        try:
            if job["mode"] == "gen":
                def progress(program):
                    out.write(json.dumps({"id": jid, "stmt": program[-1]}) + "\n")
                    out.flush()
                program, obs = generate(job["seed"], on_statement=progress)
                out.write(json.dumps({"id": jid, "done": True, "program": program, "obs": obs}) + "\n")
            else:
                name = job["lib"]
                if name not in libs:
                    libs[name] = Lib(name)
                interp = Interpreter(libs[name])
                program = job["program"]
                obs = []
                for n, st in enumerate(program):
                    out.write(json.dumps({"id": jid, "at": n}) + "\n")
                    out.flush()
                    obs.append(interp.step(st, observe_all=(n == len(program) - 1)))
                out.write(json.dumps({"id": jid, "done": True, "obs": obs}) + "\n")
        except Exception as e:     # a bug of the tester itself: report it, keep going
            out.write(json.dumps({"id": jid, "done": True, "error": f"{type(e).__name__}: {e}"}) + "\n")
        out.flush()


class Worker:
    def __init__(self, env=None):
        self.env = dict(os.environ, **(env or {}))
        self.env.setdefault("OMP_NUM_THREADS", "1")
        self.env.setdefault("NUMBA_NUM_THREADS", "1")
        self.p = None

    def _start(self):
        self.p = subprocess.Popen([sys.executable, "-m", "tests.differential.runner"], cwd=ROOT, env=self.env,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True, bufsize=1)

    def run(self, job, timeout=120):
        """Run one job; a dead or hung worker gives a crash record."""
        if self.p is None or self.p.poll() is not None:
            self._start()
        self.p.stdin.write(json.dumps(job) + "\n")
        self.p.stdin.flush()
        partial, at = [], None
        result = {}
        timer = threading.Timer(timeout, self._kill)
        timer.start()
        try:
            while True:
                line = self.p.stdout.readline()
                if not line:
                    break
                msg = json.loads(line)
                if msg.get("done"):
                    result = msg
                    break
                if "stmt" in msg:
                    partial.append(msg["stmt"])
                if "at" in msg:
                    at = msg["at"]
        finally:
            timer.cancel()
        if not result:
            rc = self.p.wait()
            self.p = None
            result = {"crash": True, "rc": rc, "program": partial, "at": at}
        return result

    def _kill(self):
        if self.p is not None:
            self.p.kill()

    def close(self):
        if self.p is not None:
            self.p.stdin.close()
            self.p.wait()
            self.p = None


class Pool:
    """n workers per library; map jobs over them in threads."""

    def __init__(self, n=2):
        self.n = n
        self.workers = queue.Queue()
        for _ in range(n):
            self.workers.put(Worker())

    def map(self, fn, items):
        """fn(worker, item) for each item, in n threads; results in order."""
        results = [None] * len(items)
        todo = queue.Queue()
        for i, it in enumerate(items):
            todo.put((i, it))

        def loop():
            w = self.workers.get()
            try:
                while True:
                    try:
                        i, it = todo.get_nowait()
                    except queue.Empty:
                        return
                    results[i] = fn(w, it)
            finally:
                self.workers.put(w)
        threads = [threading.Thread(target=loop) for _ in range(self.n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return results

    def close(self):
        while not self.workers.empty():
            self.workers.get().close()


if __name__ == "__main__":
    _worker_main()
