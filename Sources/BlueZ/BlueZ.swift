// The BlueZ module; see DESIGN.md §1.
