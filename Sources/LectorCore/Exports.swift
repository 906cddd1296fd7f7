// The error and option vocabulary is the bus interface's; LectorCore throws and reads it.
@_exported import LectorInterface
