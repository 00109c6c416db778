// The MQTT module; see DESIGN.md §1.
