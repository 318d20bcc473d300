"""Work on another thread while this one goes on: a SQLite search beside other work.

The prompt hook ranks the knowledge bundle (when :func:`spare_core` says a core is idle) while
the memory is ranked; the bundle's search is mostly ``sqlite3_step``, which runs without the GIL,
on a connection of its own, so on a machine with a free core the two take about as long as the
longer one.  Built on
``_thread`` (``threading`` is not imported on the per-event paths: tests/test_import_diet.py).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the fresh-process paths
    from typing import Any, Callable


def spare_core() -> bool:
    """Is a core likely idle for a second thread: the last minute's load average below the usable
    cores less half a core?  The load counts this process's own thread when it has been busy (a
    host or a bench running hooks one after another keeps it near 1), so on two cores a load of
    1.2 still leaves most of a core.  Work split over two threads costs more in all (each part
    pays its fixed costs): it pays only when the parts can run at once."""
    import os

    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        cores = os.cpu_count() or 1
    try:
        return cores > 1 and os.getloadavg()[0] < cores - 0.5
    except OSError:  # no load average to be had
        return False


def background(work: Callable[[], Any]) -> Callable[[], Any]:
    """Start ``work`` on another thread; the returned function waits for it and returns its
    result, or raises what it raised.  Where no thread can be started, ``work`` runs here, now."""
    import _thread

    done = _thread.allocate_lock()
    done.acquire()
    box: list[tuple[Any, BaseException | None]] = []

    def run() -> None:
        try:
            box.append((work(), None))
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            box.append((None, exc))
        finally:
            done.release()

    try:
        _thread.start_new_thread(run, ())
    except RuntimeError:  # no thread to be had
        run()

    def wait() -> Any:
        with done:
            result, failed = box[0]
        if failed is not None:
            raise failed
        return result

    return wait


def overlap(work: Callable[[], Any]) -> Callable[[], Any]:
    """:func:`background` when :func:`spare_core` says a core is idle; else ``work`` runs here,
    now (on a busy machine a second thread only adds the switches), and the returned function
    gives its result or raises what it raised."""
    if spare_core():
        return background(work)
    try:
        result = work()
    except BaseException as exc:  # noqa: BLE001 - raised where the caller waits, as background does
        failed = exc

        def fail() -> Any:
            raise failed

        return fail
    return lambda: result
