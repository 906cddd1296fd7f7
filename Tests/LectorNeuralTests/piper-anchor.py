#!/usr/bin/env python3
"""The anchor for LectorNeural's figures: piper-tts's own Python API on the same text, one ONNX
Runtime thread as Lector uses. Usage: piper-anchor.py MODEL.onnx [--alignments] (pip install piper-tts)."""
import resource
import sys
import time

import onnxruntime

# piper-tts makes its session with default options (a thread per core): ask for one, as Lector does.
_SessionOptions = onnxruntime.SessionOptions


def _one_thread():
    options = _SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return options


onnxruntime.SessionOptions = _one_thread

from piper import PiperVoice  # noqa: E402

TEXT = " ".join([
    "Call me Ishmael.",
    "Some years ago—never mind how long precisely—having little or no money in my purse, and nothing particular to interest me on shore, I thought I would sail about a little and see the watery part of the world.",
    "It is a way I have of driving off the spleen and regulating the circulation.",
    "Whenever I find myself growing grim about the mouth; whenever it is a damp, drizzly November in my soul; whenever I find myself involuntarily pausing before coffin warehouses, and bringing up the rear of every funeral I meet; and especially whenever my hypos get such an upper hand of me, that it requires a strong moral principle to prevent me from deliberately stepping into the street, and methodically knocking people’s hats off—then, I account it high time to get to sea as soon as I can.",
    "This is my substitute for pistol and ball.",
    "With a philosophical flourish Cato throws himself upon his sword; I quietly take to the ship.",
    "There is nothing surprising in this.",
    "If they but knew it, almost all men in their degree, some time or other, cherish very nearly the same feelings towards the ocean with me.",
])

model = sys.argv[1]
alignments = "--alignments" in sys.argv
start = time.perf_counter()
voice = PiperVoice.load(model, include_alignments=alignments)
load = time.perf_counter() - start
start = time.perf_counter()
first = None
samples = 0
for chunk in voice.synthesize(TEXT, include_alignments=alignments):
    first = first or time.perf_counter() - start
    samples += len(chunk.audio_float_array)
took = time.perf_counter() - start
audio = samples / voice.config.sample_rate
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"piper-tts: load {load:.3f} s; {audio:.1f} s audio in {took:.2f} s, RTF {took / audio:.3f}, "
      f"first chunk {first * 1000:.0f} ms, peak RSS {peak_mb:.0f} MB, alignments {alignments}")
