"""okfpro/io/threads.py: work on another thread, and whether a core is idle for it."""

from __future__ import annotations

import _thread
import os

import pytest

from okfpro.io import threads


def test_background_gives_the_result_and_runs_elsewhere():
    here = _thread.get_ident()
    wait = threads.background(lambda: ("done", _thread.get_ident()))
    value, where = wait()
    assert value == "done" and where != here


def test_background_raises_what_the_work_raised():
    def work():
        raise LookupError("gone")

    wait = threads.background(work)
    with pytest.raises(LookupError, match="gone"):
        wait()


def test_without_a_thread_the_work_runs_here(monkeypatch):
    def refuse(*a):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(_thread, "start_new_thread", refuse)
    here = _thread.get_ident()
    assert threads.background(_thread.get_ident)() == here


@pytest.mark.parametrize("cores,load,spare", [(2, 0.4, True), (2, 1.2, True), (2, 1.5, False), (2, 3.0, False),
                                              (1, 0.0, False), (8, 7.4, True), (8, 7.5, False)])
def test_a_spare_core_is_one_the_load_leaves_idle(monkeypatch, cores, load, spare):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)), raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (load, 0.0, 0.0))
    assert threads.spare_core() is spare


def test_no_load_average_is_no_spare_core(monkeypatch):
    def none():
        raise OSError("no /proc")

    monkeypatch.setattr(os, "getloadavg", none)
    assert threads.spare_core() is False


@pytest.mark.parametrize("spare", [True, False])
def test_overlap_runs_elsewhere_only_with_a_spare_core(monkeypatch, spare):
    monkeypatch.setattr(threads, "spare_core", lambda: spare)
    here = _thread.get_ident()
    assert (threads.overlap(_thread.get_ident)() != here) is spare

    def work():
        raise LookupError("gone")

    wait = threads.overlap(work)
    with pytest.raises(LookupError, match="gone"):
        wait()
