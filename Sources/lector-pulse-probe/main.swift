import CPulse

// Being written (issue 4): prints saved stream-restore entries.
print(String(cString: pa_get_library_version()))
