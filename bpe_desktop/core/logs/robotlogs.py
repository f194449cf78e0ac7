"""A deterministic generator of ROS 2-style robot logs, for samples and tests of any size.

Each entry is one header line ``[LEVEL] [seconds.nanoseconds] [node]: message`` (the format of
``rclcpp``'s console output), with realistic messages: planned paths, controller rates, battery, IMU and
odometry poses, lidar timeouts, costmap bounds, TF extrapolation warnings, diagnostics, joint states,
motor fault codes (``E0x2A``), CAN frames as hex bytes, and ERROR entries followed by indented
stack-trace lines (C++ backtraces with addresses, or Python tracebacks).  Timestamps grow by random
steps, in integer nanoseconds.

The same seed gives the same text, line for line, whatever the number of lines asked for (a longer log
starts with the shorter one).  Lines are produced lazily (:func:`iter_lines`), so a log of any size can
be streamed to a file.  This module only writes text; classifying it is :mod:`.logclass`.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator

#: the first timestamp, in nanoseconds since the epoch (``[1712345678.000000000]``)
START_NS = 1_712_345_678 * 10**9
LEVELS = ("DEBUG", "INFO", "WARN", "ERROR", "FATAL")

_FAULTS = ("OVERTEMP", "CAN_TIMEOUT", "ENCODER_LOSS", "WATCHDOG", "OVERCURRENT", "UNDERVOLTAGE")
_MOTORS = ("motor_driver_left", "motor_driver_right", "arm_controller", "gripper_driver")
_CPP_FRAMES = (
    ("rclcpp::Executor::execute_any_executable", "rclcpp/src/rclcpp/executor.cpp"),
    ("rclcpp::executors::SingleThreadedExecutor::spin", "rclcpp/src/rclcpp/executors/single_threaded_executor.cpp"),
    ("controller_manager::ControllerManager::update", "controller_manager/src/controller_manager.cpp"),
    ("nav2_controller::ControllerServer::computeControl", "nav2_controller/src/controller_server.cpp"),
    ("tf2_ros::Buffer::lookupTransform", "tf2_ros/src/buffer.cpp"),
    ("hardware_interface::ResourceManager::write", "hardware_interface/src/resource_manager.cpp"),
)
_RCLPY = "/opt/ros/humble/lib/python3.10/site-packages/rclpy/executors.py"
_BRIDGE = "/ws/install/fleet_bridge/lib/python3.10/site-packages/fleet_bridge/bridge.py"
_PY_FRAMES = (
    (_RCLPY, "spin_once", "handler()"),
    (_RCLPY, "_execute", "await await_or_execute(tmr.callback)"),
    (_BRIDGE, "on_timer", "self.publish_state(state)"),
    (_BRIDGE, "publish_state", "msg.battery = float(state['battery'])"),
)

Entry = Callable[[random.Random], tuple[str, str, list[str]]]  # rng -> (level, node, [message, continuation...])


def _f(rng: random.Random, lo: float, hi: float, digits: int) -> str:
    return f"{rng.uniform(lo, hi):.{digits}f}"


def _path(rng: random.Random) -> tuple[str, str, list[str]]:
    return "INFO", "nav2_controller", [f"Received path with {rng.randrange(2, 400)} poses"]


def _planner(rng: random.Random) -> tuple[str, str, list[str]]:
    return "INFO", "planner_server", [f"Computed path in {_f(rng, 0.2, 40, 1)} ms, {rng.randrange(2, 400)} poses"]


def _rate(rng: random.Random) -> tuple[str, str, list[str]]:
    want = rng.choice((10.0, 20.0, 50.0))
    return "WARN", "controller_server", [
        f"Control loop missed its desired rate of {want:.4f}Hz. "
        f"Current loop rate is {rng.uniform(want / 3, want):.4f}Hz"
    ]


def _battery(rng: random.Random) -> tuple[str, str, list[str]]:
    if rng.random() < 0.3:
        return "WARN", "battery_monitor", [f"Voltage {_f(rng, 10.8, 11.4, 2)}V below threshold 11.50V"]
    return "INFO", "battery_monitor", [
        f"Voltage {_f(rng, 11.5, 12.8, 2)}V, current {_f(rng, 0.1, 9.5, 2)}A, SoC {rng.randrange(5, 101)}%"
    ]


def _tf(rng: random.Random) -> tuple[str, str, list[str]]:
    t = 1_712_345_678 + rng.randrange(0, 86_400)
    return "WARN", "tf2_buffer", [
        f"Lookup would require extrapolation into the future. Requested time {t}.{rng.randrange(10**9):09d} "
        f"but the latest data is at time {t}.{rng.randrange(10**9):09d}, when looking up transform from frame "
        f"[{rng.choice(('base_link', 'laser_frame', 'camera_link'))}] to frame [{rng.choice(('map', 'odom'))}]"
    ]


def _amcl(rng: random.Random) -> tuple[str, str, list[str]]:
    cov = ", ".join(_f(rng, 0.001, 0.09, 4) for _ in range(3))
    return "INFO", "amcl", [f"Particle cloud converged, {rng.randrange(500, 5000)} particles, covariance {cov}"]


def _lidar(rng: random.Random) -> tuple[str, str, list[str]]:
    return "ERROR", "lidar_driver", [
        f"Timeout waiting for scan packet (attempt {rng.randrange(1, 6)}/5), errno={rng.choice((104, 110, 11))}"
    ]


def _costmap(rng: random.Random) -> tuple[str, str, list[str]]:
    b = [_f(rng, -60, 60, 2) for _ in range(4)]
    msg = f"Updating bounds [{b[0]}, {b[1]}] x [{b[2]}, {b[3]}], {rng.randrange(300)} obstacles"
    return "DEBUG", "nav2_costmap_2d", [msg]


def _diagnostics(rng: random.Random) -> tuple[str, str, list[str]]:
    status = rng.choice(("OK", "OK", "OK", "WARN", "STALE"))
    return "INFO", "diagnostics_agg", [
        f"/robot/motors/{rng.choice(('left', 'right'))}: {status} (temp {_f(rng, 25, 80, 1)}C)"
    ]


def _odom(rng: random.Random) -> tuple[str, str, list[str]]:
    v = [_f(rng, -50, 50, 3), _f(rng, -50, 50, 3), _f(rng, -3.1416, 3.1416, 4), _f(rng, 0, 1.5, 3), _f(rng, -1, 1, 3)]
    return "INFO", "odom_publisher", [f"odom x={v[0]} y={v[1]} theta={v[2]} vx={v[3]} wz={v[4]}"]


def _imu(rng: random.Random) -> tuple[str, str, list[str]]:
    q = ", ".join(_f(rng, -1, 1, 4) for _ in range(4))
    a = ", ".join([_f(rng, -0.2, 0.2, 2), _f(rng, -0.2, 0.2, 2), _f(rng, 9.7, 9.9, 2)])
    return "INFO", "imu_filter", [f"orientation q=({q}) accel=({a})"]


def _joints(rng: random.Random) -> tuple[str, str, list[str]]:
    pos = ", ".join(_f(rng, -3.1, 3.1, 4) for _ in range(6))
    vel = ", ".join(_f(rng, -2, 2, 4) for _ in range(6))
    return "INFO", "joint_state_broadcaster", [f"positions=[{pos}] velocities=[{vel}]"]


def _navigate(rng: random.Random) -> tuple[str, str, list[str]]:
    return "INFO", "bt_navigator", [
        f"Begin navigating from current location ({_f(rng, -30, 30, 2)}, {_f(rng, -30, 30, 2)}) "
        f"to ({_f(rng, -50, 50, 2)}, {_f(rng, -50, 50, 2)})"
    ]


def _fault(rng: random.Random) -> tuple[str, str, list[str]]:
    return "ERROR", rng.choice(_MOTORS), [
        f"Fault code E0x{rng.randrange(256):02X} ({rng.choice(_FAULTS)}) on axis {rng.randrange(6)}, "
        f"current={_f(rng, 0, 25, 2)}A"
    ]


def _can(rng: random.Random) -> tuple[str, str, list[str]]:
    dlc = rng.choice((8, 8, 8, 6, 4))
    data = " ".join(f"{rng.randrange(256):02X}" for _ in range(dlc))
    bus = rng.choice(("can0", "can1"))
    return "DEBUG", "can_bridge", [f"{bus} rx id=0x{rng.randrange(0x800):03X} dlc={dlc} data=[{data}]"]


def _cpp_trace(rng: random.Random) -> tuple[str, str, list[str]]:
    joint = rng.randrange(7)
    lines = [
        f"Unhandled exception in update(): std::out_of_range: vector::_M_range_check: __n (which is {joint + 6}) "
        f">= this->size() (which is {joint + 6})"
    ]
    for k, (func, file) in enumerate(rng.sample(_CPP_FRAMES, rng.randrange(2, 6))):
        addr = 0x7F0000000000 + rng.randrange(1 << 40)
        lines.append(f"    #{k} 0x{addr:016x} in {func}() at /opt/ros/humble/src/{file}:{rng.randrange(40, 900)}")
    return "ERROR", rng.choice(("arm_controller", "controller_manager", "nav2_controller")), lines


def _py_trace(rng: random.Random) -> tuple[str, str, list[str]]:
    lines = ["Exception in timer callback: KeyError: 'battery'", "  Traceback (most recent call last):"]
    for file, func, code in _PY_FRAMES[: rng.randrange(2, 5)]:
        lines.append(f'    File "{file}", line {rng.randrange(20, 800)}, in {func}')
        lines.append(f"      {code}")
    lines.append("  KeyError: 'battery'")
    return "ERROR", "fleet_bridge", lines


def _fatal(rng: random.Random) -> tuple[str, str, list[str]]:
    return "FATAL", rng.choice(_MOTORS), [
        f"Emergency stop: watchdog expired after {rng.randrange(100, 2000)} ms, session "
        f"{rng.getrandbits(32):08x}-{rng.getrandbits(16):04x}-4{rng.getrandbits(12):03x}-"
        f"{8 + rng.randrange(4):x}{rng.getrandbits(12):03x}-{rng.getrandbits(48):012x}"
    ]


#: (weight, entry maker): common messages often, stack traces and fatal errors rarely
ENTRIES: tuple[tuple[int, Entry], ...] = (
    (14, _path), (8, _planner), (8, _rate), (8, _battery), (6, _tf), (6, _amcl), (5, _lidar), (5, _costmap),
    (6, _diagnostics), (10, _odom), (5, _imu), (4, _joints), (3, _navigate), (4, _fault), (6, _can),
    (1, _cpp_trace), (1, _py_trace), (1, _fatal),
)
_MAKERS = [m for _, m in ENTRIES]
_CUMULATIVE = list(itertools.accumulate(w for w, _ in ENTRIES))


def format_timestamp(ns: int) -> str:
    """``[seconds.nanoseconds]`` as ROS 2 prints it.

    >>> format_timestamp(1_712_345_678_000_000_042)
    '1712345678.000000042'
    """
    return f"{ns // 10**9}.{ns % 10**9:09d}"


def iter_entries(seed: int) -> Iterator[list[str]]:
    """Endless log entries for *seed*: each a header line and its continuation lines (no newlines)."""
    rng = random.Random(seed)
    ns = START_NS + rng.randrange(10**9)
    while True:
        ns += rng.randrange(50_000, 60_000_000)
        maker = rng.choices(_MAKERS, cum_weights=_CUMULATIVE)[0]
        level, node, lines = maker(rng)
        if level == "INFO" and rng.random() < 0.04:
            level = "DEBUG"
        yield [f"[{level}] [{format_timestamp(ns)}] [{node}]: {lines[0]}", *lines[1:]]


def iter_lines(lines: int, seed: int = 0) -> Iterator[str]:
    """The first *lines* lines of the log for *seed*, each ending in ``\\n`` (an entry's stack trace may be
    cut short at the end).

    >>> first = list(iter_lines(2, seed=1))
    >>> first == list(iter_lines(3, seed=1))[:2] and all(line.startswith("[") for line in first)
    True
    """
    if lines <= 0:
        return
    n = 0
    for entry in iter_entries(seed):
        for line in entry:
            yield line + "\n"
            n += 1
            if n >= lines:
                return


def generate(lines: int, seed: int = 0) -> str:
    """The whole log of :func:`iter_lines` as one string."""
    return "".join(iter_lines(lines, seed))
