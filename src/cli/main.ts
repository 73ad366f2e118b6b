console.log('ideal-state');
