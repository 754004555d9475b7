"""vxsynth_torch.mem_profile: a vxsim memory profile is read with errors that name the file and line,
and one made with another kernel than the ELF given is refused (docs/vxsim.md "Memory profile")."""
import pytest

from vxsynth_torch import mem_profile

HEADER = ("launch\tpc\tinstruction\tkind\twarp_instrs\tlane_accesses\tstack_lanes\tl1_requests\tsectors\t"
          "l1_read_misses\tdram_read_bytes\tdram_write_bytes\n")
ROW = "0\t0x80000010\tlw a4, 8(a0)\tload\t64\t256\t0\t64\t64\t0\t448\t0\n"


def write(tmp_path, text, name="p.tsv"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_rows_of_one_launch(tmp_path):
    p = write(tmp_path, HEADER + ROW + ROW.replace("0\t0x80000010", "1\t0x80000014", 1))
    assert [r["pc"] for r in mem_profile.read_profile(p, None)] == ["0x80000010", "0x80000014"]
    assert [r["pc"] for r in mem_profile.read_profile(p, 1)] == ["0x80000014"]


@pytest.mark.parametrize("text, said", [
    (HEADER + ROW[:20] + "\n", "p.tsv:2: 3 fields, the header has 12"),
    ("launch\tpc\n" + ROW, "p.tsv:1: not a vxsim memory profile (no column instruction"),
    (HEADER, "p.tsv: no rows"),
])
def test_bad_profiles_name_the_file_and_line(tmp_path, text, said):
    with pytest.raises(SystemExit) as e:
        mem_profile.read_profile(write(tmp_path, text), None)
    assert said in str(e.value)


def test_a_missing_launch_lists_the_profiles_launches(tmp_path):
    with pytest.raises(SystemExit) as e:
        mem_profile.read_profile(write(tmp_path, HEADER + ROW), 7)
    assert "no rows of launch 7 (launches: 0)" in str(e.value)


def test_unreadable_profiles(tmp_path):
    for p in (tmp_path / "missing.tsv", write(tmp_path, "", "empty.tsv")):
        with pytest.raises(SystemExit) as e:
            mem_profile.read_profile(p, None)
        assert str(p) in str(e.value)
    binary = tmp_path / "b.tsv"
    binary.write_bytes(b"\x7fELF\xf3\x00")
    with pytest.raises(SystemExit) as e:
        mem_profile.read_profile(binary, None)
    assert "cannot read a memory profile" in str(e.value)


def test_a_profile_of_another_kernel_is_refused(tmp_path, monkeypatch):
    rows = mem_profile.read_profile(write(tmp_path, HEADER + ROW), None)
    disassembly = "80000010:\tsll\ta0,a0,0x2\n"
    monkeypatch.setattr(mem_profile, "objdump_output", lambda args, elf, objdump: disassembly)
    with pytest.raises(SystemExit) as e:
        mem_profile.check_same_program(rows, "other.elf", "objdump")
    assert "1 of the profile's 1 instructions are not other.elf's" in str(e.value)
    disassembly = "80000010:\tlw\ta4,8(a0)\n"
    mem_profile.check_same_program(rows, "kernel.elf", "objdump")  # the same program: no exit
