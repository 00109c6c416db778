// The Emulation module; see DESIGN.md §1.
