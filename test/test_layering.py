# Copyright 2026 The transmission_plugins Authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""
What the import contracts cannot see: imports at run time, and words no module may use.

The layering itself (a module imports its own layer and those below; only ros/ and tools/
import ROS packages; the maths reaches neither lxml nor rclpy) is import-linter's, configured in
setup.cfg and run by ``test_import_linter.py``.  Here: ``import transmission_plugins`` and the
maths load neither lxml nor rclpy when they run (the public names are imported lazily, which no
static analysis follows), loading a robot never loads rclpy, and no module uses a private API
or an implementation switch.
"""

import subprocess
import sys
import textwrap

from tp_support import PACKAGE_DIR


def _run(code):
    return subprocess.run([sys.executable, '-c', textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120)


def test_importing_the_maths_loads_neither_lxml_nor_rclpy_at_run_time():
    result = _run("""
        import sys
        import transmission_plugins
        from transmission_plugins import SimpleTransmission, PR2GripperTransmission
        import transmission_plugins.urdf.readers
        import transmission_plugins.transmissions
        t = SimpleTransmission(10.0)
        t.actuator_to_joint({'position': [1.0]})
        print(sorted(m for m in ('lxml', 'rclpy', 'urdf_parser_py', 'xacro') if m in sys.modules))
        """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == '[]'


def test_loading_a_robot_never_imports_rclpy():
    result = _run("""
        import sys
        from transmission_plugins import load_robot_transmissions
        robot = load_robot_transmissions(
            '<robot name="r"><link name="a"/><link name="b"/>'
            '<joint name="j" type="continuous"><parent link="a"/><child link="b"/></joint>'
            '<transmission name="t"><type>transmission_interface/SimpleTransmission</type>'
            '<joint name="j"/><actuator name="m"><mechanicalReduction>5</mechanicalReduction>'
            '</actuator></transmission></robot>')
        import transmission_plugins.runtime.hardware_interface
        import transmission_plugins.runtime.simulator
        print(robot.joint_names, 'rclpy' in sys.modules)
        """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['j'] False"


#: what no package module may use (issue 24): private APIs of rclpy and CPython, garbage
#: collector and native-timer tricks, switches that pick an implementation
FORBIDDEN = ('_callback_type', '_run_exitfuncs', 'gc.freeze', 'gc.unfreeze', 'timer_create',
             'TP_COMPILED', 'TP_EXECUTOR', 'TP_STOP_GRACE', 'rclpy.experimental',
             '__signature__', 'faulthandler.dump_traceback_later')


def test_no_private_api_no_implementation_switch():
    modules = sorted(PACKAGE_DIR.rglob('*.py'))
    assert len(modules) > 100
    used = {str(path.relative_to(PACKAGE_DIR)): words for path in modules
            if (words := [word for word in FORBIDDEN if word in path.read_text()])}
    assert not used, f'modules use what no module may use: {used}'


def test_no_launch_description_changes_signal_handling():
    """A launch file included in a user's own must not change Ctrl-C for the whole system."""
    for path in [*sorted((PACKAGE_DIR / 'tools' / 'launch').glob('*_launch.py')),
                 PACKAGE_DIR / 'tools' / 'launch' / 'launch_description.py',
                 *sorted((PACKAGE_DIR.parent / 'launch').glob('*.py'))]:
        text = path.read_text()
        assert 'signal.signal(' not in text and 'set_wakeup_fd' not in text, path
