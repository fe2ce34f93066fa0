SELECT 1;;  ; -- trailing
