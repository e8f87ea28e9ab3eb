"""The process engine of `trajectories.engines.run_jobs`: jobs go to the pool in chunks, and
results still come back in job order, each reported once to `on_done`."""

from __future__ import annotations

import os

from citeloop.trajectories.engines import MAX_CHUNK, chunk_size, run_jobs, side_by_side


def _square_and_pid(offset: int, job: int) -> tuple[int, int]:
    return offset + job * job, os.getpid()


def test_chunks_are_a_sixteenth_of_each_workers_share_within_bounds() -> None:
    assert chunk_size(1000, 2) == MAX_CHUNK == 8
    assert chunk_size(100, 2) == 3  # 100 // 32
    assert chunk_size(10, 2) == 1
    assert chunk_size(0, 2) == 1
    assert chunk_size(5, 0) == 1


def test_process_pool_returns_every_result_in_job_order_and_reports_each_once() -> None:
    jobs = list(range(203))  # not a multiple of the chunk size: the last chunk is short
    seen: list[int] = []
    results = run_jobs(_square_and_pid, jobs, 7, engine="process", workers=2,
                       on_done=lambda index, result: seen.append(index))
    assert [r for r, _ in results] == [7 + j * j for j in jobs]
    assert sorted(seen) == jobs
    assert os.getpid() not in {pid for _, pid in results}


def test_serial_and_process_engines_give_the_same_list() -> None:
    jobs = list(range(40))
    serial = [r for r, _ in run_jobs(_square_and_pid, jobs, 1, engine="serial")]
    pooled = [r for r, _ in run_jobs(_square_and_pid, jobs, 1, engine="process", workers=2)]
    assert serial == pooled


def test_side_by_side_groups_equal_keys_in_order_of_first_appearance() -> None:
    keys = ["q1", "q2", "q1", "q3", "q2", "q1"]
    assert side_by_side(keys, lambda k: k) == [0, 2, 5, 1, 4, 3]
    assert side_by_side([], lambda k: k) == []


def test_jobs_handed_out_together_still_come_back_in_job_order() -> None:
    jobs = [j % 5 for j in range(60)]  # keys alternate; each key's jobs are grouped when handed out
    for engine, workers in (("serial", None), ("process", 2)):
        seen: list[int] = []
        results = run_jobs(_square_and_pid, jobs, 0, engine=engine, workers=workers, together=lambda j: j,
                           on_done=lambda index, result: seen.append(index))
        assert [r for r, _ in results] == [j * j for j in jobs]
        assert sorted(seen) == list(range(60))
    order: list[int] = []
    run_jobs(_square_and_pid, jobs, 0, engine="serial", together=lambda j: j, on_done=lambda i, r: order.append(i))
    assert [jobs[i] for i in order] == sorted(jobs)  # serially, handed out key by key
