#include "CLectorShim.h"
