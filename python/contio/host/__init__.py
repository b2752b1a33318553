"""Facts and commands of the host contio runs on: mounts, block devices, loop devices,
file systems, processes, the state directory, undo journals and owner locks. A leaf:
it imports no other contio package but `errors` and the top-level helpers."""
