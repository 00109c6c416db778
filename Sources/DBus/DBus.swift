// The DBus module; see DESIGN.md §1.
