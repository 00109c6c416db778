// The FakeBlueZ module; see DESIGN.md §1.
