// The Kernel module; see DESIGN.md §1.
