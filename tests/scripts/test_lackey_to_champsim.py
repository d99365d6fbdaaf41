"""scripts/lackey_to_champsim.py on a hand-written Lackey capture: record layout (ChampSim's
64-byte input_instr), memory operands per instruction, taken-branch marking, --skip and
--count."""
import os
import struct
import subprocess
import sys
import unittest

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "lackey_to_champsim.py")
RECORD = struct.Struct("<QBB2B4B2Q4Q")

CAPTURE = b"""==123== Lackey, an example Valgrind tool
I  00401000,3
 L 7ff000100,8
I  00401003,4
 S 7ff000200,8
 M 00600010,4
I  00401007,2
I  00402000,5
 L 00600020,4
 L 00600028,4
 L 00600030,4
 L 00600038,4
 L 00600040,4
I  00402005,1
"""


def convert(*args):
    out = subprocess.run([sys.executable, SCRIPT, *args], input=CAPTURE, capture_output=True,
                         check=True).stdout
    assert len(out) % 64 == 0
    return [RECORD.unpack_from(out, i) for i in range(0, len(out), 64)]


class LackeyToChampSim(unittest.TestCase):
    def test_records(self):
        r = convert()
        self.assertEqual([x[0] for x in r], [0x401000, 0x401003, 0x401007, 0x402000, 0x402005])
        ip, is_branch, taken = r[0][0:3]
        self.assertEqual((is_branch, taken), (0, 0))
        # fields: 3..4 destination registers, 5..8 source registers, 9..10 destination memory,
        # 11..14 source memory
        self.assertEqual(r[0][11:15], (0x7FF000100, 0, 0, 0))
        self.assertEqual(r[0][9:11], (0, 0))
        # S is a destination; M is both a source and a destination
        self.assertEqual(r[1][9:11], (0x7FF000200, 0x600010))
        self.assertEqual(r[1][11:15], (0x600010, 0, 0, 0))
        # 0x401007 + 2 != 0x402000: a taken branch (reads IP and flags, writes IP)
        self.assertEqual(r[2][1:3], (1, 1))
        self.assertEqual(r[2][3], 26)
        self.assertEqual(r[2][5:7], (26, 25))
        # at most 4 sources are kept
        self.assertEqual(r[3][11:15], (0x600020, 0x600028, 0x600030, 0x600038))
        # the last instruction has no successor: not a branch
        self.assertEqual(r[4][1:3], (0, 0))

    def test_skip_and_count(self):
        r = convert("--skip", "1", "--count", "2")
        self.assertEqual([x[0] for x in r], [0x401003, 0x401007])


if __name__ == "__main__":
    unittest.main()
